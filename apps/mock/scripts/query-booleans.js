// Which query parameters of an API are booleans wherever its spec declares them, found with the
// repository's OpenAPI toolkit. The mock's build writes them down (write-query-booleans.js).
import { listOperations, resolveRef } from '@agentplane/openapi-toolkit';

/**
 * The names of the query parameters that are booleans wherever the spec declares them: their
 * `1` and `0` mean true and false (decision E10), which Prism alone would refuse.
 * @param {any} spec the bundled spec
 * @returns {Set<string>}
 */
export function booleanQueryParameters(spec) {
  /** @type {Map<string, boolean>} */
  const everywhereBoolean = new Map();
  for (const { parameters } of listOperations(spec)) {
    for (const parameter of parameters) {
      if (parameter.in !== 'query') continue;
      const boolean = resolveRef(spec, parameter.schema)?.type === 'boolean';
      everywhereBoolean.set(parameter.name, (everywhereBoolean.get(parameter.name) ?? true) && boolean);
    }
  }
  return new Set([...everywhereBoolean].filter(([, boolean]) => boolean).map(([name]) => name));
}
