// What a server of an API needs from its spec, generated at build time so that it compiles
// nothing when it starts (the emulator's decision E8):
//
//   <out>/<api>/operations.ts    the operation table: method, path, path parameters (and how the
//                                text of each parameter is read), security alternatives, request
//                                body, documented statuses and their declared (and required)
//                                headers; the security schemes; the request limits
//                                (`x-request-limits`); the other media types a body is read as
//                                JSON from (`x-json-media-types`); the titles of union branches,
//                                their types and their tags (required fields with a `const`)
//   <out>/<api>/server-types.ts  openapi-typescript types in the server's view (defaults applied)
//   <out>/<api>/contract.ts      the facts the clients act on too (contract-module.ts)
//   <out>/server-operation.ts    the types of the operation table (server-operation.ts), for
//                                both APIs: the server names them from there, not from this
//                                private toolkit, so its published declarations stand alone
//   <out>/<api>/{params,body,patch-body,check}.cjs
//                                Ajv standalone validators (CommonJS, so that a server can load
//                                each one synchronously the first time it needs it): path and
//                                query parameters (defaults applied; never coerced: the server
//                                reads their text as `textTypes` says, so that `0x10` stays text
//                                and is refused), request bodies (defaults applied, except for
//                                PATCH, whose absent fields mean "keep"), and checks that never
//                                change a value (responses, component schemas, union branches)
//
// Validators are named after what they check (`createThread_body`, `getThread_200`,
// `component_Message`, `branch_3`); the table says which one applies where.
import fs from 'node:fs';
import path from 'node:path';
import { createConfig } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import { addFormats } from './ajv-formats.js';
import { apiPaths } from './apis.js';
import { writeFile } from './build-spec.js';
import { renderContractModule } from './contract-module.js';
import type { OpenApiDocument } from './document.js';
import { anchorRefs, DOCUMENT_ID, listOperations, resolveRef, withoutAnnotations } from './document.js';
import type { ParameterTextType, RequestLimits, ScalarTextType, ServerOperation } from './server-operation.js';
import { generateTypes, SERVER_TYPEGEN_OPTIONS } from './typegen.js';

type StandaloneCode = (ajv: Ajv2020, refsOrFunctions: Record<string, string>) => string;
const standaloneCode = ((standaloneCodeModule as unknown as { default?: StandaloneCode }).default ??
  standaloneCodeModule) as StandaloneCode;

/** The four validator modules, by the Ajv options their code was generated with. */
const MODULES = {
  params: { useDefaults: true },
  body: { useDefaults: true },
  'patch-body': {},
  check: {},
} as const;
type ModuleName = keyof typeof MODULES;

/** Generates one API's server artifacts into `<outDir>/<api>`, and the validator modules into `<distDir>/<api>` too. */
export async function writeServerArtifacts(api: string, outDir: string, distDir?: string): Promise<void> {
  const started = performance.now();
  const spec = JSON.parse(fs.readFileSync(apiPaths(api).bundleJson, 'utf8')) as OpenApiDocument;
  const lean = withoutAnnotations(spec);
  const ajvs = Object.fromEntries(Object.entries(MODULES).map(([name, options]) => [name, createAjv(lean, options)])) as Record<
    ModuleName,
    Ajv2020
  >;
  const exports: Record<ModuleName, Record<string, string>> = { params: {}, body: {}, 'patch-body': {}, check: {} };
  const add = (module: ModuleName, name: string, schema: object): string => {
    const id = `urn:agentplane:${module}:${name}`;
    ajvs[module].addSchema({ ...anchorRefs(schema), $id: id }, id);
    exports[module][name] = id;
    return name;
  };

  const operations: ServerOperation[] = listOperations(lean).map(({ method, path: route, operationId, operation, parameters }) => {
    const paramSchema = (where: 'path' | 'query') => {
      const list = parameters.filter((p) => p.in === where);
      if (list.length === 0) return null;
      return add('params', `${operationId}_${where}`, {
        type: 'object',
        properties: Object.fromEntries(list.map((p) => [p.name, p.schema ?? {}])),
        required: list.filter((p) => p.required).map((p) => p.name),
      });
    };
    const requestBody = operation.requestBody ? resolveRef(lean, operation.requestBody) : null;
    const bodyModule = method === 'patch' ? 'patch-body' : 'body';
    const responses: Record<string, ServerOperation['responses'][string]> = {};
    for (const [status, declared] of Object.entries<any>(operation.responses ?? {})) {
      const response = resolveRef(lean, declared);
      const schema = response?.content?.['application/json']?.schema;
      const eventSchema = response?.content?.['text/event-stream']?.['x-event-schema'];
      const socket = response?.['x-websocket'];
      responses[status] = {
        validator: schema ? add('check', `${operationId}_${status}`, schema) : null,
        eventValidator: eventSchema ? add('check', `${operationId}_${status}_event`, eventSchema) : null,
        socketValidators: socket
          ? {
              client: add('check', `${operationId}_${status}_client_message`, socket['client-messages']),
              server: add('check', `${operationId}_${status}_server_message`, socket['server-messages']),
            }
          : null,
        headers: Object.keys(response?.headers ?? {}).map((name) => name.toLowerCase()),
        requiredHeaders: Object.entries<any>(response?.headers ?? {})
          .filter(([, header]) => resolveRef(lean, header)?.required)
          .map(([name]) => name.toLowerCase()),
      };
    }
    return {
      operationId,
      method: method.toUpperCase(),
      path: route,
      pathPattern: `^${route
        .split(/\{[^}]+\}/)
        .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('([^/]+)')}$`,
      pathParams: [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      security: operation.security ?? lean.security ?? [],
      parameters: { path: paramSchema('path'), query: paramSchema('query'), textTypes: textTypesOf(lean, operationId, parameters) },
      body: requestBody
        ? {
            required: requestBody.required === true,
            mediaTypes: Object.keys(requestBody.content ?? {}),
            module: bodyModule,
            validator: add(bodyModule, operationId, requestBody.content?.['application/json']?.schema ?? {}),
          }
        : null,
      responses,
    };
  });

  for (const name of Object.keys(lean.components?.schemas ?? {})) {
    exports.check[`component_${name}`] = `${DOCUMENT_ID}#/components/schemas/${name}`;
  }
  // Every branch of every union, so that a failed oneOf/anyOf can be re-checked branch by
  // branch and the branch the input came closest to reported (see the emulator's
  // validation-errors.ts). A branch is found again by its canonical JSON. Its tags (a required
  // field whose value is a `const`, a message's `type`) name the branch an input meant.
  const branches = new Map<string, UnionBranch>();
  visitSchemas(lean, (schema) => {
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      for (const branch of schema[keyword] ?? []) {
        const key = branchKey(branch);
        if (branches.has(key)) continue;
        const resolved = resolveRef(lean, branch);
        const title = resolved?.type === 'null' ? 'null' : (resolved?.title ?? null);
        const type = typeof resolved?.type === 'string' ? resolved.type : null;
        const tags = Object.fromEntries(
          Object.entries<any>(resolved?.properties ?? {}).flatMap(([name, property]) => {
            const value = resolveRef(lean, property)?.const;
            return value !== undefined && resolved.required?.includes(name) ? [[name, value]] : [];
          }),
        );
        branches.set(key, { validator: add('check', `branch_${branches.size}`, branch), title, type, tags });
      }
    }
  });

  const dir = path.join(outDir, api);
  for (const module of Object.keys(MODULES) as ModuleName[]) {
    for (const id of Object.values(exports[module])) ajvs[module].getSchema(id);
    const code = `${HEADER}${standaloneCode(ajvs[module], exports[module])}\n`;
    for (const target of [dir, ...(distDir ? [path.join(distDir, api)] : [])]) writeFile(path.join(target, `${module}.cjs`), code);
  }
  writeFile(path.join(dir, 'operations.ts'), operationsModule(lean, operations, branches, requestLimits(spec), jsonMediaTypes(spec)));
  writeFile(path.join(outDir, 'server-operation.ts'), serverOperationModule());
  writeFile(path.join(dir, 'contract.ts'), renderContractModule(spec));
  // The bundle passed the repository's lint when it was built; openapi-typescript need not lint it again.
  const config = await createConfig({ rules: {} });
  writeFile(path.join(dir, 'server-types.ts'), await generateTypes(serverView(spec), config, SERVER_TYPEGEN_OPTIONS));
  console.log(`${api}: server artifacts in ${path.relative(process.cwd(), dir)} (${Math.round(performance.now() - started)} ms)`);
}

/**
 * The document as a server sees requests after validation: a parameter with a default is always
 * there (openapi-typescript's defaultNonNullable covers schema properties, not parameters).
 */
function serverView(spec: OpenApiDocument): OpenApiDocument {
  const view = structuredClone(spec);
  const defaulted = (parameter: any) => {
    const resolved = resolveRef(view, parameter);
    if (resolved && !resolved.required && resolveRef(view, resolved.schema)?.default !== undefined) resolved.required = true;
  };
  for (const parameter of Object.values<any>(view.components?.parameters ?? {})) defaulted(parameter);
  for (const { parameters } of listOperations(view)) parameters.forEach(defaulted);
  return view;
}

/** A branch of a union as the table lists it: its validator, title, JSON type and tags. */
interface UnionBranch {
  validator: string;
  title: string | null;
  type: string | null;
  tags: Record<string, unknown>;
}

const HEADER = '// Generated by `agentplane-spec server-artifacts` from the bundled spec. Do not edit.\n';

/** The canonical key of a union branch: its JSON with object keys sorted and references made local. */
export function branchKey(branch: unknown): string {
  const canonical = (value: unknown): string => {
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
    return `{${Object.keys(value)
      .sort()
      .map((key) => {
        const item = (value as Record<string, unknown>)[key];
        const local = key === '$ref' && typeof item === 'string' && item.startsWith(DOCUMENT_ID) ? item.slice(DOCUMENT_ID.length) : item;
        return `${JSON.stringify(key)}:${canonical(local)}`;
      })
      .join(',')}}`;
  };
  return canonical(branch);
}

function createAjv(spec: OpenApiDocument, options: object): Ajv2020 {
  // `verbose` puts a failed union's branches and input on its error (see validation-errors.ts).
  // inlineRefs off: a component referenced from many places is one function, not many copies.
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, inlineRefs: false, code: { source: true }, ...options });
  addFormats(ajv);
  ajv.addSchema({ ...spec, $id: DOCUMENT_ID }, DOCUMENT_ID);
  return ajv;
}

/** Calls `visit` on every schema object reachable in the document's components and operations. */
function visitSchemas(spec: OpenApiDocument, visit: (schema: Record<string, any>) => void): void {
  const seen = new Set<object>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    visit(node as Record<string, any>);
    for (const value of Object.values(node)) walk(value);
  };
  walk(spec.components);
  walk(spec.paths);
}

/** How each path and query parameter of an operation is read from its text. */
function textTypesOf(spec: OpenApiDocument, operationId: string, parameters: any[]): Record<string, ParameterTextType> {
  const types: Record<string, ParameterTextType> = {};
  for (const parameter of parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const schema = resolveRef(spec, parameter.schema) ?? {};
    const scalarOf = (of: any): ScalarTextType | undefined => {
      const declared = [of.type ?? 'string'].flat().filter((t: string) => t !== 'null');
      return declared.length === 1 && ['string', 'integer', 'number', 'boolean'].includes(declared[0]) ? declared[0] : undefined;
    };
    // A query list is sent as the parameter repeated once per item (`select=a&select=b`, OpenAPI's form style, exploded).
    const isList = parameter.in === 'query' && schema.type === 'array';
    const scalar = scalarOf(isList ? (resolveRef(spec, schema.items) ?? {}) : schema);
    if (!scalar)
      throw new Error(
        `${operationId}: parameter ${parameter.name} must have one scalar type (string, integer, number or boolean), or be a query list of one`,
      );
    const textType: ParameterTextType = isList ? `${scalar}[]` : scalar;
    if (types[parameter.name] && types[parameter.name] !== textType)
      throw new Error(`${operationId}: the path and query parameters named ${parameter.name} must have the same type`);
    types[parameter.name] = textType;
  }
  return types;
}

/**
 * The operation table's types as a module of the server's own: the compiled declarations of
 * server-operation.ts (types only, so a declaration file is also a valid module).
 */
function serverOperationModule(): string {
  return `${HEADER}${fs.readFileSync(new URL('./server-operation.d.ts', import.meta.url), 'utf8')}`;
}

/** The document's `x-request-limits`, which every server of the API enforces. */
function requestLimits(spec: OpenApiDocument): RequestLimits {
  const declared = (spec as Record<string, any>)['x-request-limits'] ?? {};
  const limits = { bodyBytes: declared['body-bytes'], headerBytes: declared['header-bytes'], jsonDepth: declared['json-depth'] };
  for (const [name, value] of Object.entries(limits))
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new Error(`x-request-limits must give body-bytes, header-bytes and json-depth as positive integers (${name} is ${value})`);
  return limits;
}

/**
 * The document's `x-json-media-types`: media types other than an operation's own whose bodies
 * every server of the API reads as JSON when they hold JSON (the agent server's `text/plain`).
 */
function jsonMediaTypes(spec: OpenApiDocument): string[] {
  const declared = (spec as Record<string, any>)['x-json-media-types'] ?? [];
  if (!Array.isArray(declared) || declared.some((type) => typeof type !== 'string' || !/^[a-z]+\/[a-z0-9.+-]+$/.test(type)))
    throw new Error(`x-json-media-types must be a list of media types in lower case, without parameters (${JSON.stringify(declared)})`);
  return declared;
}

function operationsModule(
  spec: OpenApiDocument,
  operations: ServerOperation[],
  branches: Map<string, UnionBranch>,
  limits: RequestLimits,
  jsonMediaTypes: string[],
): string {
  const securitySchemes = Object.fromEntries(
    Object.entries<any>(spec.components?.securitySchemes ?? {}).map(([name, scheme]) => {
      const resolved = resolveRef(spec, scheme);
      return [
        name,
        {
          type: resolved.type,
          ...(resolved.in ? { in: resolved.in } : {}),
          ...(resolved.name ? { name: resolved.name } : {}),
          ...(resolved.scheme ? { scheme: resolved.scheme } : {}),
        },
      ];
    }),
  );
  const table = {
    operations: Object.fromEntries(operations.map((op) => [op.operationId, op])),
    securitySchemes,
    limits,
    jsonMediaTypes,
    branches: Object.fromEntries(branches),
  };
  return `${HEADER}// The operations of the API as its server routes, validates and answers them.\nexport const api = ${JSON.stringify(table, null, 2)} as const;\n`;
}
