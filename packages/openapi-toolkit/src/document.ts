// The OpenAPI document model every tool of the repository shares: loading a bundle, listing its
// operations (path-level parameters merged in), following `$ref`s and JSON pointers. One walker,
// so that the build, the tests, the docs and the emulator's artifacts read a spec the same way.
import fs from 'node:fs';
import { apiPaths } from './apis.js';

/** A bundled OpenAPI 3.1 document (self-contained: every `$ref` is local). */
export type OpenApiDocument = Record<string, any> & { paths: Record<string, any>; components: Record<string, any> };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * The `$id` a document is registered under in a JSON Schema validator, so that schemas taken out
 * of it resolve their `#/components/...` references against it.
 */
export const DOCUMENT_ID = 'https://agentplane.invalid/openapi.json';

export interface ListedOperation {
  method: HttpMethod;
  path: string;
  operationId: string;
  operation: any;
  /** Path-level and operation-level parameters, resolved. */
  parameters: any[];
  /** JSON pointer of the operation in the document. */
  pointer: string;
}

/** The bundled JSON spec of one of the repository's APIs. */
export function loadBundle(api: string): OpenApiDocument {
  return JSON.parse(fs.readFileSync(apiPaths(api).bundleJson, 'utf8')) as OpenApiDocument;
}

/** Every operation of a document, in document order. */
export function listOperations(spec: OpenApiDocument): ListedOperation[] {
  const operations: ListedOperation[] = [];
  for (const [route, item] of Object.entries<any>(spec.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolveRef(spec, p));
      operations.push({
        method,
        path: route,
        operationId: operation.operationId,
        operation,
        parameters,
        pointer: `#/paths/${escapePointer(route)}/${method}`,
      });
    }
  }
  return operations;
}

/**
 * Follows `$ref`s (repeatedly) to the object they name: local ones (`#/components/...`) and
 * ones anchored to DOCUMENT_ID.
 */
export function resolveRef(spec: OpenApiDocument, node: unknown): any {
  let current: any = node;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const ref: string = current.$ref.startsWith(DOCUMENT_ID) ? current.$ref.slice(DOCUMENT_ID.length) : current.$ref;
    if (seen.has(ref)) throw new Error(`circular $ref ${ref}`);
    seen.add(ref);
    current = getPointer(spec, ref);
  }
  return current;
}

/** The value at a local reference such as `#/components/schemas/Thread`. */
export function getPointer(spec: unknown, ref: string): any {
  if (!ref.startsWith('#')) throw new Error(`only local references are supported, got ${ref}`);
  return ref
    .slice(1)
    .split('/')
    .filter(Boolean)
    .map(unescapePointer)
    .reduce((node: any, key) => {
      if (node == null || typeof node !== 'object' || !(key in node)) throw new Error(`unresolvable reference ${ref}`);
      return node[key];
    }, spec);
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Rewrites a schema's local `$ref`s (`#/...`) to absolute ones under DOCUMENT_ID. */
export function anchorRefs<T>(node: T): T {
  if (Array.isArray(node)) return node.map(anchorRefs) as T;
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${DOCUMENT_ID}${value}` : anchorRefs(value),
    ]),
  ) as T;
}

/** Annotations no validator or client reads. Titles stay (union messages name them), and so do `x-` extensions. */
const ANNOTATIONS = new Set(['description', 'summary', 'example', 'examples', 'externalDocs', 'xml', 'discriminator']);

/** Keys whose values are maps of names (properties, statuses, media types...), never of keywords. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'schemas',
  'parameters',
  'responses',
  'headers',
  'content',
  'paths',
  'securitySchemes',
  'requestBodies',
  'variables',
]);

/** The document without its annotations; a key is an annotation only where keys are keywords, not names. */
export function withoutAnnotations<T>(node: T): T {
  const strip = (value: unknown, keysAreNames: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => strip(item, false));
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => keysAreNames || !ANNOTATIONS.has(key))
        .map(([key, item]) => [key, strip(item, !keysAreNames && NAME_MAPS.has(key))]),
    );
  };
  return strip(node, false) as T;
}
