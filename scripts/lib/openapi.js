// Reading and checking the bundled specs: the operations they declare and a JSON Schema
// validator (Ajv, draft 2020-12 as OpenAPI 3.1 uses) for any schema inside them. Tests use it to
// check examples and mock answers against the contract, never a hand-copied schema.
import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { apiPaths } from './apis.js';

const addFormats = /** @type {any} */ (addFormatsModule).default ?? addFormatsModule;
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** @param {string} api @returns {any} the bundled JSON spec */
export function loadBundle(api) {
  return JSON.parse(fs.readFileSync(apiPaths(api).bundleJson, 'utf8'));
}

/**
 * Every operation of a bundle, with path-level parameters merged in.
 * @param {any} spec
 * @returns {{method: string, path: string, operationId: string, operation: any, parameters: any[], pointer: string}[]}
 */
export function listOperations(spec) {
  const operations = [];
  for (const [route, item] of Object.entries(spec.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = /** @type {any} */ (item)[method];
      if (!operation) continue;
      const parameters = [...(/** @type {any} */ (item).parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolveRef(spec, p));
      operations.push({ method, path: route, operationId: operation.operationId, operation, parameters, pointer: `#/paths/${escapePointer(route)}/${method}` });
    }
  }
  return operations;
}

/** Follows a local `$ref` (repeatedly) to the object it names. */
export function resolveRef(spec, node) {
  let current = node;
  const seen = new Set();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    if (seen.has(current.$ref)) throw new Error(`circular $ref ${current.$ref}`);
    seen.add(current.$ref);
    current = getPointer(spec, current.$ref);
  }
  return current;
}

/** @param {any} spec @param {string} ref a local reference such as `#/components/schemas/Thread` */
export function getPointer(spec, ref) {
  if (!ref.startsWith('#')) throw new Error(`only local references are supported, got ${ref}`);
  return ref
    .slice(1)
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node, key) => {
      if (node == null || !(key in node)) throw new Error(`unresolvable reference ${ref}`);
      return node[key];
    }, spec);
}

/** @param {string} segment */
export function escapePointer(segment) {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * A validator for schemas of `spec`: pass either a local JSON pointer (`#/components/schemas/X`)
 * or a schema object taken from the spec (such as a response's schema), whose local `$ref`s are
 * resolved against the spec.
 * @param {any} spec
 * @returns {(schema: string | object, value: unknown) => {valid: boolean, errors: string}}
 */
export function createValidator(spec) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictTypes: false, strictTuples: false });
  addFormats(ajv);
  // OpenAPI's own schema keywords, and the document's top-level fields (the whole document is
  // registered so that `#/components/...` references resolve): annotations, nothing to validate.
  for (const keyword of new Set(['example', 'discriminator', 'xml', 'externalDocs', ...Object.keys(spec).filter((k) => k !== '$id')])) {
    ajv.addKeyword({ keyword });
  }
  const id = 'https://agentplane.invalid/openapi.json';
  ajv.addSchema({ ...spec, $id: id }, id);
  /** @type {Map<string, import('ajv').ValidateFunction>} */
  const compiled = new Map();
  return (schema, value) => {
    const key = typeof schema === 'string' ? schema : JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(typeof schema === 'string' ? { $ref: `${id}${schema}` } : anchorRefs(schema, id));
      compiled.set(key, validate);
    }
    const valid = /** @type {boolean} */ (validate(value));
    return { valid, errors: valid ? '' : ajv.errorsText(validate.errors, { dataVar: 'value' }) };
  };
}

/** Rewrites local `$ref`s (`#/...`) of a schema taken out of the document to absolute ones. */
function anchorRefs(node, id) {
  if (Array.isArray(node)) return node.map((item) => anchorRefs(item, id));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${id}${value}` : anchorRefs(value, id)]),
  );
}
