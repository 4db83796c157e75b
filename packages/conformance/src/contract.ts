// Layer (a) of a run: every answer checked against the bundled spec. The operation table and
// the Ajv validators are generated from the bundle at build time (`agentplane-spec
// server-artifacts`, as the emulator's are), so no rule is restated here: a status the operation
// does not document, a required header missing, or a body its schema refuses is a finding, placed
// where the spec states the rule so that the report can name it.
import { createRequire } from 'node:module';
import type { ServerOperation } from '@agentplane/openapi-toolkit';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { api as agentServerTable } from './generated/agent-server/operations.js';
import { api as controlPlaneTable } from './generated/control-plane/operations.js';
import type { ApiName, Finding } from './model.js';
import type { SpecOperation } from './spec.js';
import { declaredDifferences, differenceNear, escapePointer, operationsOf, responsePointerOf, specOf } from './spec.js';

const TABLES: Record<ApiName, { operations: Readonly<Record<string, ServerOperation>> }> = {
  'agent-server': agentServerTable,
  'control-plane': controlPlaneTable,
};

const require = createRequire(import.meta.url);
const validators = new Map<ApiName, Record<string, ValidateFunction>>();
/** The generated response validators of an API, loaded on first use. */
function checks(api: ApiName): Record<string, ValidateFunction> {
  let loaded = validators.get(api);
  if (!loaded) {
    loaded = require(`./generated/${api}/check.cjs`) as Record<string, ValidateFunction>;
    validators.set(api, loaded);
  }
  return loaded;
}

export interface Route {
  api: ApiName;
  operation: SpecOperation;
  /** The path parameters, by name. */
  params: Record<string, string>;
}

interface Matcher {
  method: string;
  pattern: RegExp;
  names: readonly string[];
  operation: SpecOperation;
}
const matchers = new Map<ApiName, Matcher[]>();

/** The operation a request is for, from its method and path (the path after the base URL's own path). */
export function routeOf(api: ApiName, method: string, path: string): Route | undefined {
  let list = matchers.get(api);
  if (!list) {
    const spec = operationsOf(api);
    list = Object.values(TABLES[api].operations).map((generated) => ({
      method: generated.method,
      pattern: new RegExp(generated.pathPattern),
      names: generated.pathParams,
      operation: spec.get(generated.operationId)!,
    }));
    // A concrete path (`/threads/search`) wins over a template (`/threads/{thread_id}`).
    list.sort((a, b) => a.names.length - b.names.length);
    matchers.set(api, list);
  }
  for (const matcher of list) {
    if (matcher.method !== method) continue;
    const match = matcher.pattern.exec(path);
    if (match)
      return {
        api,
        operation: matcher.operation,
        params: Object.fromEntries(matcher.names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)])),
      };
  }
  return undefined;
}

/** The statuses an operation documents. */
export function documentedStatuses(api: ApiName, operationId: string): string[] {
  return Object.keys(TABLES[api].operations[operationId]?.responses ?? {});
}

/**
 * Checks one answer against the operation's documented responses. `body` is the parsed JSON
 * (undefined for an empty body, or the text when it is not JSON). `requestFields` are the
 * top-level fields of the request body, used to place a finding on a request field whose
 * description declares a difference (such as search's `select`).
 */
export function checkAnswer(
  route: Route,
  status: number,
  body: unknown,
  headers: Headers,
  requestFields: readonly string[],
  bodyWasJson: boolean,
): Finding[] {
  const { api, operation } = route;
  const generated = TABLES[api].operations[operation.operationId]!;
  const entry = generated.responses[String(status)];
  const at = (message: string, pointer: string, field?: string): Finding => {
    // The declared differences are the agent server's (from the LangGraph JS server); a control
    // plane pointer of the same name is another object.
    const difference =
      api !== 'agent-server'
        ? undefined
        : (differenceNear(pointer, field) ?? differenceNear(operation.pointer) ?? requestFieldDifference(operation, requestFields));
    return { message, operationId: operation.operationId, pointer, ...(difference ? { langGraphDifference: difference } : {}) };
  };
  if (!entry) {
    return [
      at(
        `${operation.operationId} answered ${status}, a status it does not document (documented: ${Object.keys(generated.responses).join(', ')})`,
        `${operation.pointer}/responses`,
      ),
    ];
  }
  const findings: Finding[] = [];
  const responsePointer = `${operation.pointer}/responses/${status}`;
  for (const header of entry.requiredHeaders) {
    if (!headers.has(header)) {
      const name = specHeaderName(api, operation, String(status), header);
      const finding = at(`${status} answer of ${operation.operationId} lacks the ${name} header`, `${responsePointer}/headers`, name);
      const difference = finding.langGraphDifference ?? (api === 'agent-server' ? differenceNamingHeader(name) : undefined);
      findings.push(difference ? { ...finding, langGraphDifference: difference } : finding);
    }
  }
  if (entry.eventValidator) {
    // A stream: its events are checked one by one as they are read (checkEvent).
    const type = headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream'))
      findings.push(at(`${status} answer of ${operation.operationId} is ${type || 'untyped'}, not text/event-stream`, responsePointer));
    return findings;
  }
  if (!entry.validator) {
    if (body !== undefined)
      findings.push(at(`${status} answer of ${operation.operationId} has a body; the spec documents none`, responsePointer));
    return findings;
  }
  if (!bodyWasJson) {
    // Stated by the answer's response object, where a difference in an agent server's error
    // bodies is declared (the ErrorDetail schema is shared with the control plane).
    const pointer = responsePointerOf(api, operation, String(status));
    findings.push(
      at(`${status} answer of ${operation.operationId} is not JSON: ${JSON.stringify(String(body ?? '').slice(0, 80))}`, pointer),
    );
    return findings;
  }
  const validate = checks(api)[entry.validator]!;
  if (validate(body)) return findings;
  for (const error of relevantErrors(validate.errors ?? [])) {
    const { pointer, field } = whereStated(error, responsePointer);
    findings.push(at(`${status} answer of ${operation.operationId}: ${describe(error)}`, pointer, field));
  }
  return findings;
}

/** Ajv reports every branch of a failed union; the union's own error says it in one line. */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').map((e) => e.instancePath);
  return errors.filter(
    (e) =>
      e.keyword === 'oneOf' ||
      e.keyword === 'anyOf' ||
      (!unions.some((path) => e.instancePath.startsWith(path) && e.instancePath !== path) && !unions.includes(e.instancePath)),
  );
}

/** Where the spec states the rule an error breaks: the component schema (by its title) and the property. */
function whereStated(error: ErrorObject, fallback: string): { pointer: string; field?: string } {
  const title = (error.parentSchema as { title?: unknown } | undefined)?.title;
  if (typeof title !== 'string') return { pointer: fallback };
  const schema = `#/components/schemas/${escapePointer(title)}`;
  const field =
    error.keyword === 'required'
      ? String((error.params as { missingProperty?: unknown }).missingProperty)
      : error.instancePath.split('/').filter(Boolean).pop();
  if (error.keyword === 'required' && field) return { pointer: `${schema}/properties/${escapePointer(field)}`, field };
  return field ? { pointer: schema, field } : { pointer: schema };
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'the body' : `body${error.instancePath.replaceAll('/', '.')}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** A difference the spec declares on a request field this request used (`ThreadSearch.select`). */
function requestFieldDifference(operation: SpecOperation, fields: readonly string[]): string | undefined {
  if (!operation.requestSchema) return undefined;
  const found = fields
    .map((field) => differenceNear(`#/components/schemas/${escapePointer(operation.requestSchema!)}/properties/${escapePointer(field)}`))
    .filter((id): id is string => id !== undefined);
  return found.length === 1 ? found[0] : undefined;
}

/** Whether an operation answers this status with a stream of events (`x-event-schema`). */
export function isEventStream(route: Route, status: number): boolean {
  return Boolean(TABLES[route.api].operations[route.operation.operationId]?.responses[String(status)]?.eventValidator);
}

/** One event of a stream as eventsource-parser reads it: its `data` still text. */
export interface StreamEvent {
  event?: string | undefined;
  data: string;
  id?: string | undefined;
}

/**
 * Checks one event of a streamed answer against the media type's `x-event-schema`
 * (RunStreamEvent): `{event, data, id}` with `data` read as JSON, as the typed client yields it.
 */
export function checkEvent(route: Route, status: number, event: StreamEvent): Finding[] {
  const { api, operation } = route;
  const validator = TABLES[api].operations[operation.operationId]?.responses[String(status)]?.eventValidator;
  if (!validator) return [];
  const pointer = `${operation.pointer}/responses/${status}/content/text~1event-stream/x-event-schema`;
  const at = (message: string, where: string, field?: string): Finding => {
    const difference = api === 'agent-server' ? differenceNear(where, field) : undefined;
    return { message, operationId: operation.operationId, pointer: where, ...(difference ? { langGraphDifference: difference } : {}) };
  };
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return [
      at(
        `event ${event.event ?? '(unnamed)'} of ${operation.operationId}: data is not JSON: ${JSON.stringify(event.data.slice(0, 80))}`,
        pointer,
      ),
    ];
  }
  const validate = checks(api)[validator]!;
  const parsed = { event: event.event, data, ...(event.id === undefined ? {} : { id: event.id }) };
  if (validate(parsed)) return [];
  return relevantErrors(validate.errors ?? []).map((error) => {
    const { pointer: stated, field } = whereStated(error, pointer);
    return at(
      `event ${event.event ?? '(unnamed)'} of ${operation.operationId}: ${describe(error).replace(/^(the )?body/, '$1event')}`,
      stated,
      field,
    );
  });
}

/** A response header's name as the spec spells it (`Location`), from the generated lower-case one. */
function specHeaderName(api: ApiName, operation: SpecOperation, status: string, header: string): string {
  const headers = specOf(api).paths?.[operation.path]?.[operation.method.toLowerCase()]?.responses?.[status]?.headers ?? {};
  return Object.keys(headers).find((name) => name.toLowerCase() === header) ?? header;
}

/**
 * The one declared difference that names a header (in backticks) as one that server does not
 * send, wherever the spec declares it: a header missing from another operation's answer is the
 * same difference (`stream-location` names `Location`, which joinRunStream answers too).
 */
function differenceNamingHeader(name: string): string | undefined {
  const naming = new Set(declaredDifferences().flatMap((d) => (new RegExp(`sends?\\s+no\\s+\`${name}\``).test(d.text) ? [d.id] : [])));
  return naming.size === 1 ? [...naming][0] : undefined;
}
