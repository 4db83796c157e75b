// Compiles every operation of an OpenAPI document into what the HTTP layer needs: a path
// matcher, validators for path/query parameters and the JSON body (which also apply the spec's
// defaults), the security alternatives, and a checker for each documented response. Nothing here
// knows an endpoint by name: adding an operation to the spec adds it here.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from './load-specs.js';
import { type Location, toValidationIssues, type ValidationIssue } from './validation-errors.js';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof import('ajv-formats').default;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const DOCUMENT_ID = 'https://agentplane.invalid/openapi.json';

export type SecurityRequirement = Record<string, string[]>;

export interface CompiledOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** Matches a request path; the groups are the path parameters, in `paramNames` order. */
  matcher: RegExp;
  paramNames: string[];
  /** Validates (and coerces, and fills defaults into) the path parameters; issues or null. */
  checkPath(values: Record<string, unknown>): ValidationIssue[] | null;
  checkQuery(values: Record<string, unknown>): ValidationIssue[] | null;
  /** null when the operation takes no body. */
  body: { required: boolean; mediaTypes: string[]; check(value: unknown): ValidationIssue[] | null } | null;
  /** Alternatives (any one suffices); `{}` among them means no credentials are needed. */
  security: SecurityRequirement[];
  /** Checks a response against the spec: null when it conforms, a reason otherwise. */
  checkResponse(status: number, body: unknown, headers: Record<string, string>): string | null;
}

export interface CompiledApi {
  operations: CompiledOperation[];
  securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }>;
  /** Validator of any component schema of the document, such as `ThreadValues`. */
  checkSchema(component: string, value: unknown, location: Location, locPrefix: (string | number)[]): ValidationIssue[] | null;
}

export function compileApi(spec: OpenApiDocument): CompiledApi {
  const body = createAjv(spec, { useDefaults: true });
  const patchBody = createAjv(spec, {}); // a PATCH's absent field means "keep": no defaults
  const params = createAjv(spec, { useDefaults: true, coerceTypes: true });
  const responses = createAjv(spec, {});

  const unions = (ajv: Ajv2020) => ({
    validateBranch(schema: unknown, value: unknown): ErrorObject[] {
      const validate = compileCached(ajv, schema);
      return validate(value) ? [] : [...(validate.errors ?? [])];
    },
    titleOf(schema: unknown): string | undefined {
      const resolved = resolveSchema(spec, schema);
      if (resolved?.type === 'null') return 'null';
      return resolved?.title;
    },
  });
  const check = (ajv: Ajv2020, validate: ValidateFunction, location: Location) => (value: unknown) =>
    validate(value) ? null : toValidationIssues(validate.errors ?? [], location, unions(ajv));

  const operations: CompiledOperation[] = [];
  for (const [pathTemplate, item] of Object.entries(spec.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: unknown) => resolveSchema(spec, p));
      const paramNames = [...pathTemplate.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const paramSchema = (where: string) => {
        const list = parameters.filter((p: any) => p.in === where);
        return {
          type: 'object',
          properties: Object.fromEntries(list.map((p: any) => [p.name, anchorRefs(p.schema ?? {})])),
          required: list.filter((p: any) => p.required).map((p: any) => p.name),
        };
      };
      const requestBody = operation.requestBody ? resolveSchema(spec, operation.requestBody) : null;
      const bodyAjv = method === 'patch' ? patchBody : body;
      const json = requestBody?.content?.['application/json'];
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        pathTemplate,
        matcher: new RegExp(
          `^${pathTemplate
            .split(/\{[^}]+\}/)
            .map(escapeRegExp)
            .join('([^/]+)')}$`,
        ),
        paramNames,
        checkPath: check(params, params.compile(paramSchema('path')), 'path'),
        checkQuery: check(params, params.compile(paramSchema('query')), 'query'),
        body: requestBody
          ? {
              required: requestBody.required === true,
              mediaTypes: Object.keys(requestBody.content ?? {}),
              check: check(bodyAjv, bodyAjv.compile(anchorRefs(json?.schema ?? {})), 'body'),
            }
          : null,
        security: operation.security ?? spec.security ?? [],
        checkResponse: compileResponseCheck(spec, responses, operation),
      });
    }
  }
  // Literal segments win over parameters (`/threads/search` before `/threads/{thread_id}`).
  operations.sort((a, b) => a.paramNames.length - b.paramNames.length);

  const componentValidators = new Map<string, ValidateFunction>();
  return {
    operations,
    securitySchemes: Object.fromEntries(
      Object.entries(spec.components?.securitySchemes ?? {}).map(([name, s]) => [name, resolveSchema(spec, s)]),
    ),
    checkSchema(component, value, location, locPrefix) {
      let validate = componentValidators.get(component);
      if (!validate) {
        // A check only: the instance without defaults, so the value is never altered.
        validate = responses.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${component}` });
        componentValidators.set(component, validate);
      }
      if (validate(value)) return null;
      return toValidationIssues(validate.errors ?? [], location, unions(responses)).map((issue) => ({
        ...issue,
        loc: [issue.loc[0]!, ...locPrefix, ...issue.loc.slice(1)],
      }));
    },
  };
}

function compileResponseCheck(spec: OpenApiDocument, ajv: Ajv2020, operation: any): CompiledOperation['checkResponse'] {
  const byStatus = new Map<string, { validate: ValidateFunction | null; requiredHeaders: string[] }>();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const resolved = resolveSchema(spec, response);
    const schema = resolved?.content?.['application/json']?.schema;
    const requiredHeaders = Object.entries(resolved?.headers ?? {})
      .filter(([, header]) => resolveSchema(spec, header)?.required)
      .map(([name]) => name.toLowerCase());
    byStatus.set(status, { validate: schema ? ajv.compile(anchorRefs(schema)) : null, requiredHeaders });
  }
  return (status, body, headers) => {
    const entry = byStatus.get(String(status));
    if (!entry) return `status ${status} is not documented for ${operation.operationId} (documented: ${[...byStatus.keys()].join(', ')})`;
    for (const name of entry.requiredHeaders) if (!(name in headers)) return `header ${name} is missing`;
    if (!entry.validate) return body === undefined ? null : `status ${status} of ${operation.operationId} has no body in the spec`;
    if (entry.validate(body)) return null;
    return ajv.errorsText(entry.validate.errors, { dataVar: 'response' });
  };
}

function createAjv(spec: OpenApiDocument, options: { useDefaults?: boolean; coerceTypes?: boolean }): Ajv2020 {
  // `verbose` puts a failed union's branches and input on its error (see validation-errors.ts).
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, ...options });
  addFormats(ajv);
  ajv.addSchema({ ...spec, $id: DOCUMENT_ID }, DOCUMENT_ID);
  return ajv;
}

const branchValidators = new WeakMap<Ajv2020, WeakMap<object, ValidateFunction>>();
function compileCached(ajv: Ajv2020, schema: unknown): ValidateFunction {
  let cache = branchValidators.get(ajv);
  if (!cache) branchValidators.set(ajv, (cache = new WeakMap()));
  const key = schema as object;
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(anchorRefs(schema) as object);
    cache.set(key, validate);
  }
  return validate;
}

/** Follows local and anchored `$ref`s to the object they name. */
export function resolveSchema(spec: OpenApiDocument, node: unknown): any {
  let current: any = node;
  for (let hops = 0; current && typeof current === 'object' && typeof current.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`$ref chain too long at ${current.$ref}`);
    const ref: string = current.$ref.startsWith(DOCUMENT_ID) ? current.$ref.slice(DOCUMENT_ID.length) : current.$ref;
    current = ref
      .slice(1)
      .split('/')
      .filter(Boolean)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((n: any, key) => n?.[key], spec);
  }
  return current;
}

/** Rewrites a schema's local `$ref`s (`#/...`) against the registered document. */
function anchorRefs(node: unknown): any {
  if (Array.isArray(node)) return node.map(anchorRefs);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${DOCUMENT_ID}${value}` : anchorRefs(value),
    ]),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
