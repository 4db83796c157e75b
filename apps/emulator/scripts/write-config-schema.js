// Writes dist/config.schema.json, the JSON Schema of the emulator's config file (published as
// `@agentplane/emulator/config.schema.json`), from the one schema the emulator validates configs
// with (src/config.ts's CONFIG_SCHEMA, whose `graphs` are src/agent-server/graphs/graph-config.ts).
// An editor with the YAML language server completes and checks a config with it:
//   # yaml-language-server: $schema=./node_modules/@agentplane/emulator/dist/config.schema.json
//
// CONFIG_SCHEMA spells every subschema out where it is used (so that its TypeScript types can be
// derived from it); here each one used more than once is written once, under `definitions`, and
// referred to by `$ref`: the same schema, a fraction of the size.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { CONFIG_SCHEMA_DOCUMENT } from '../dist/config.js';

/** Subschemas smaller than this are left where they are: a `$ref` would not be shorter. */
const WORTH_SHARING = 160;

const counts = new Map();
const keyOf = (schema) => crypto.createHash('sha1').update(JSON.stringify(schema)).digest('hex').slice(0, 10);
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

// Where a schema's keywords hold subschemas: one, a list, or a map of them by name. Every other
// keyword (enum, const, default, examples) holds data, which is left as it is.
const ONE = new Set(['items', 'additionalProperties', 'propertyNames', 'not', 'if', 'then', 'else', 'contains']);
const LIST = new Set(['anyOf', 'oneOf', 'allOf']);
const MAP = new Set(['properties', 'patternProperties', 'definitions']);

/** Calls `visit` on each subschema of `schema`, with how to put a new one in its place. */
function eachSubschema(schema, visit) {
  for (const [keyword, value] of Object.entries(schema)) {
    if (ONE.has(keyword) && isObject(value)) visit(value, (next) => (schema[keyword] = next));
    else if (LIST.has(keyword) && Array.isArray(value)) for (const [i, item] of value.entries()) visit(item, (next) => (value[i] = next));
    else if (MAP.has(keyword) && isObject(value))
      for (const [name, item] of Object.entries(value)) if (isObject(item)) visit(item, (next) => (value[name] = next));
  }
}

/** Counts every subschema worth sharing, by its content. */
function count(schema) {
  if (JSON.stringify(schema).length >= WORTH_SHARING) counts.set(keyOf(schema), (counts.get(keyOf(schema)) ?? 0) + 1);
  eachSubschema(schema, (subschema) => count(subschema));
}

const definitions = {};
/** The schema with each repeated subschema (inner ones first) moved to `definitions`. */
function share(schema) {
  const key = keyOf(schema);
  const copy = structuredClone(schema);
  eachSubschema(copy, (subschema, replace) => replace(share(subschema)));
  if ((counts.get(key) ?? 0) < 2) return copy;
  const name = `${copy.title ?? 'schema'}_${key}`.replace(/[^A-Za-z0-9_]/g, '_');
  definitions[name] = copy;
  return { $ref: `#/definitions/${name}` };
}

count(CONFIG_SCHEMA_DOCUMENT);
const root = structuredClone(CONFIG_SCHEMA_DOCUMENT);
eachSubschema(root, (subschema, replace) => replace(share(subschema)));
const out = new URL('../dist/config.schema.json', import.meta.url);
fs.writeFileSync(out, `${JSON.stringify({ ...root, definitions }, null, 2)}\n`);
