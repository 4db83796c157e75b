// One API's contract as the HTTP layer uses it, assembled from the artifacts generated from the
// bundled spec at build time (src/generated/<api>: the operation table and precompiled
// validators). Nothing here knows an endpoint by name and nothing is compiled at start-up
// (decision E8): adding an operation to the spec adds it here on the next build.
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { api as agentServerTable } from '../generated/agent-server/operations.js';
import { api as controlPlaneTable } from '../generated/control-plane/operations.js';
import type { ServerOperation } from '../generated/server-operation.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { ParameterTextType } from './parameter-text.js';
import type { Location, UnionSupport, ValidationIssue } from './validation-errors.js';
import { toValidationIssues } from './validation-errors.js';

export type ApiName = 'control-plane' | 'agent-server';

/** What every request of an API is held to: its spec's `x-request-limits`. */
export interface RequestLimits {
  bodyBytes: number;
  headerBytes: number;
  jsonDepth: number;
}

/** The generated table of one API. */
export type ApiTable = typeof agentServerTable | typeof controlPlaneTable;
const TABLES: Record<ApiName, ApiTable> = { 'agent-server': agentServerTable, 'control-plane': controlPlaneTable };

type ValidatorModule = 'params' | 'body' | 'patch-body' | 'check';
type Validators = Record<string, ValidateFunction>;
const require = createRequire(import.meta.url);

/**
 * The generated validators of one module, loaded (synchronously) the first time a request needs
 * them: an emulator starts without loading any (decision E8).
 */
function lazyValidators(api: ApiName): (module: ValidatorModule) => Validators {
  const loaded = new Map<ValidatorModule, Validators>();
  return (module) => {
    let validators = loaded.get(module);
    if (!validators) {
      validators = require(`../generated/${api}/${module}.cjs`) as Validators;
      loaded.set(module, validators);
    }
    return validators;
  };
}

/** Alternatives (any one suffices); `{}` among them means no credentials are needed. */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export interface ContractOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** Matches a request path; the groups are the path parameters, in `paramNames` order. */
  matcher: RegExp;
  paramNames: readonly string[];
  /** The declared path and query parameters, and how the text of each is read (see parameter-text.ts). */
  textTypes: Readonly<Record<string, ParameterTextType>>;
  /** Validates (and fills defaults into) the path parameters, as read from their text; issues or null. */
  checkPath(values: Record<string, unknown>): ValidationIssue[] | null;
  checkQuery(values: Record<string, unknown>): ValidationIssue[] | null;
  /** null when the operation takes no body. */
  body: { required: boolean; mediaTypes: readonly string[]; check(value: unknown): ValidationIssue[] | null } | null;
  security: readonly SecurityRequirement[];
  /** Checks an answer against the spec: null when it conforms, a reason otherwise. */
  checkResponse(status: number, body: unknown, headers: Record<string, string>): string | null;
  /** Checks one event of a streamed answer (`{event, data, id}`) against the spec: a problem, or null. */
  checkEvent(status: number, event: unknown): string | null;
  /** Checks a message of the WebSocket an answer (a 101) opens, sent by the client or the server: a problem, or null. */
  checkSocketMessage(status: number, side: 'client' | 'server', message: unknown): string | null;
}

export interface ApiContract {
  name: ApiName;
  /** Literal paths before templated ones, so `/threads/search` wins over `/threads/{thread_id}`. */
  operations: ContractOperation[];
  securitySchemes: Readonly<Record<string, { type: string; in?: string; name?: string; scheme?: string }>>;
  /** What every request is held to (the spec's `x-request-limits`). */
  limits: Readonly<RequestLimits>;
  /**
   * Media types besides each body's own whose bodies are read as JSON when they hold JSON (the
   * spec's `x-json-media-types`): the agent server's `text/plain`, as LangGraph Studio sends it.
   */
  jsonMediaTypes: readonly string[];
  /** Every header some response declares, lower-case, sorted. */
  responseHeaders: readonly string[];
  /** Checks a value against a component schema (`Message`), never changing it; issues (at `locPrefix`) or null. */
  checkSchema(component: string, value: unknown, location: Location, locPrefix: (string | number)[]): ValidationIssue[] | null;
}

const contracts = new Map<ApiName, ApiContract>();

/** The contract of an API (built once per process; it holds no state). */
export function loadContract(name: ApiName): ApiContract {
  let contract = contracts.get(name);
  if (!contract) {
    contract = buildContract(name);
    contracts.set(name, contract);
  }
  return contract;
}

function buildContract(name: ApiName): ApiContract {
  const table = TABLES[name];
  const validators = lazyValidators(name);
  const check = (validator: string) => validators('check')[validator]!;
  const branches = table.branches as Readonly<
    Record<string, { validator: string; title: string | null; type: string | null; tags: Readonly<Record<string, unknown>> }>
  >;
  const branchOf = (schema: unknown) => {
    const entry = branches[branchKey(schema)];
    if (!entry) throw new Error(`${name}: no generated validator for the union branch ${JSON.stringify(schema)}; rebuild the emulator`);
    return entry;
  };
  const unions: UnionSupport = {
    validateBranch(schema, value) {
      const validate = check(branchOf(schema).validator);
      return validate(value) ? [] : [...(validate.errors ?? [])];
    },
    titleOf: (schema) => branchOf(schema).title ?? undefined,
    formOf: (schema) => ({ type: branchOf(schema).type ?? undefined, tags: branchOf(schema).tags }),
  };
  /** A check by a generated validator, found on first use: issues or null. */
  const issuesOf = (module: ValidatorModule, validator: string | null, location: Location) => {
    if (!validator) return () => null;
    let validate: ValidateFunction | undefined;
    return (value: unknown) => {
      validate ??= validators(module)[validator]!;
      return validate(value) ? null : toValidationIssues(validate.errors ?? [], location, unions);
    };
  };

  const generated = Object.values(table.operations as Record<string, GeneratedOperation>);
  const operations = generated.map((op): ContractOperation => {
    const responses = new Map(
      Object.entries(op.responses).map(([status, r]) => [
        status,
        {
          validator: r.validator,
          eventValidator: r.eventValidator,
          socketValidators: r.socketValidators,
          requiredHeaders: r.requiredHeaders,
        },
      ]),
    );
    return {
      operationId: op.operationId,
      method: op.method,
      pathTemplate: op.path,
      matcher: new RegExp(op.pathPattern),
      paramNames: op.pathParams,
      textTypes: op.parameters.textTypes,
      checkPath: issuesOf('params', op.parameters.path, 'path'),
      checkQuery: issuesOf('params', op.parameters.query, 'query'),
      body: op.body
        ? { required: op.body.required, mediaTypes: op.body.mediaTypes, check: issuesOf(op.body.module, op.body.validator, 'body') }
        : null,
      security: op.security,
      checkEvent(status, event) {
        const validator = responses.get(String(status))?.eventValidator;
        if (!validator) return `status ${status} of ${op.operationId} streams no events in the spec`;
        const validate = check(validator);
        if (validate(event)) return null;
        return describeErrors(validate.errors ?? []);
      },
      checkSocketMessage(status, side, message) {
        const validators = responses.get(String(status))?.socketValidators;
        if (!validators) return `status ${status} of ${op.operationId} opens no WebSocket in the spec`;
        const validate = check(validators[side]);
        if (validate(message)) return null;
        return describeErrors(validate.errors ?? [], side === 'client' ? 'command' : 'message');
      },
      checkResponse(status, body, headers) {
        const entry = responses.get(String(status));
        if (!entry) return `status ${status} is not documented for ${op.operationId} (documented: ${[...responses.keys()].join(', ')})`;
        for (const header of entry.requiredHeaders) if (!(header in headers)) return `header ${header} is missing`;
        if (!entry.validator) return body === undefined ? null : `status ${status} of ${op.operationId} has no body in the spec`;
        const validate = check(entry.validator);
        if (validate(body)) return null;
        return describeErrors(validate.errors ?? []);
      },
    };
  });
  operations.sort((a, b) => a.paramNames.length - b.paramNames.length);

  return {
    name,
    operations,
    securitySchemes: table.securitySchemes,
    limits: table.limits,
    jsonMediaTypes: table.jsonMediaTypes,
    responseHeaders: [...new Set(generated.flatMap((op) => Object.values(op.responses).flatMap((r) => r.headers)))].sort(),
    checkSchema(component, value, location, locPrefix) {
      const validate = validators('check')[`component_${component}`];
      if (!validate) throw new Error(`${name} has no component schema ${component}`);
      if (validate(value)) return null;
      return toValidationIssues(validate.errors ?? [], location, unions).map((issue) => ({
        ...issue,
        loc: [issue.loc[0]!, ...locPrefix, ...issue.loc.slice(1)],
      }));
    },
  };
}

/** An operation of the generated table, as the generator describes it. */
type GeneratedOperation = ServerOperation;

/** Ajv's errors in one line, as its errorsText writes them, of a response (or another subject). */
function describeErrors(errors: ErrorObject[], subject = 'response'): string {
  return errors.map((e) => `${subject}${e.instancePath} ${e.message ?? 'is invalid'}`).join(', ');
}

/** The key the generator gave a union branch: its canonical JSON with references made local. */
function branchKey(branch: unknown): string {
  return canonicalJson(
    JSON.parse(JSON.stringify(branch), (key, value) =>
      key === '$ref' && typeof value === 'string' ? value.slice(value.indexOf('#')) : value,
    ),
  );
}
