// What the config's JSON Schema found wrong, as one line per problem a person meant to fix, each
// saying what to write instead where that can be said.
//
// Ajv reports every branch of an `anyOf` that failed: a step with a typo is told that it is not a
// task (the typo) and also not a `parallel` step (which it never meant to be), in six lines. Here
// an `anyOf` takes the branch the value was meant for (by its type, then by the keys it has and the
// branch requires or knows) and reports that branch's problems alone, checked again against the
// branch itself; a value no branch's type fits gets one line naming the types that would.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ConfigPath } from './source-positions.js';

/** One problem, at a key path of the config. */
export interface ConfigProblem {
  path: ConfigPath;
  message: string;
}

type Schema = Record<string, unknown>;

/** How the problems are found again for one branch of an anyOf: a validator of that branch's schema. */
export type BranchValidator = (branch: Schema) => ValidateFunction;

export function schemaProblems(
  errors: readonly ErrorObject[],
  data: unknown,
  root: Schema,
  branchValidator: BranchValidator,
): ConfigProblem[] {
  const problems = new Map<string, ConfigProblem>();
  for (const error of meantErrors(errors, data, root, branchValidator)) {
    const problem = describe(error, data);
    problems.set(`${problem.path.join('\u0000')}\u0001${problem.message}`, problem);
  }
  return [...problems.values()];
}

/** The errors with each anyOf narrowed to the branch its value was meant for, outermost first. */
function meantErrors(errors: readonly ErrorObject[], data: unknown, root: Schema, branchValidator: BranchValidator): ErrorObject[] {
  let result = [...errors];
  const anyOfs = errors.filter((error) => error.keyword === 'anyOf').sort((a, b) => a.instancePath.length - b.instancePath.length);
  for (const anyOf of anyOfs) {
    if (!result.includes(anyOf)) continue; // inside a branch an outer anyOf set aside
    const at = anyOf.instancePath;
    result = result.filter((error) => !within(error.instancePath, at));
    const value = valueAt(data, at);
    const branches = (anyOf.schema as Schema[]).map((branch) => resolve(branch, root));
    const meant = meantBranch(branches, value);
    if (meant === undefined) {
      const types = [...new Set(branches.flatMap((branch) => typesOf(branch)))];
      result.push({ ...anyOf, keyword: 'type', params: { type: types.join(',') }, data: value });
      continue;
    }
    const validate = branchValidator((anyOf.schema as Schema[])[meant]!);
    if (validate(value)) continue;
    const inner = (validate.errors ?? []).map((error) => ({ ...error, instancePath: at + error.instancePath }));
    result.push(...meantErrors(inner, data, root, branchValidator));
  }
  return result;
}

/** The branch a value was meant for: one its type fits, then the one whose required keys it has, then the one that knows most of its keys. */
function meantBranch(branches: readonly Schema[], value: unknown): number | undefined {
  const fitting = branches.map((branch, index) => ({ branch, index })).filter(({ branch }) => fitsType(branch, value));
  if (fitting.length <= 1 || !isObject(value)) return fitting[0]?.index;
  const keys = Object.keys(value);
  const score = (branch: Schema) => {
    const required = (branch.required as string[] | undefined) ?? [];
    const known = Object.keys((branch.properties as Schema | undefined) ?? {});
    return (required.every((key) => keys.includes(key)) ? 1000 : 0) + keys.filter((key) => known.includes(key)).length;
  };
  return fitting.reduce((best, candidate) => (score(candidate.branch) > score(best.branch) ? candidate : best)).index;
}

function describe(error: ErrorObject, data: unknown): ConfigProblem {
  const path = pathOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const value = error.data;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const near = nearest(key, allowed);
      return {
        path: [...path, key],
        message: `unknown key; ${near ? `did you mean ${near}? ` : ''}allowed here: ${allowed.join(', ')}`,
      };
    }
    case 'required':
      return { path: [...path, String(params.missingProperty)], message: 'missing; it is required' };
    case 'enum':
      return { path, message: `${show(value)} is not allowed; use one of ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'pattern': {
      // A pattern is no explanation: a schema with one says in its description what it allows.
      const allows = (error.parentSchema as { description?: string } | undefined)?.description;
      return { path, message: `${show(value)} ${allows ? `does not fit; expected ${allows}` : error.message}` };
    }
    case 'type':
      return { path, message: `${show(value)} is not ${typeName(String(params.type))}${typeHint(String(params.type), value)}` };
    case 'uniqueItems': {
      const [first, second] = [Number(params.j), Number(params.i)].sort((a, b) => a - b) as [number, number];
      const list = valueAt(data, error.instancePath) as unknown[];
      return {
        path: [...path, second],
        message: `${show(list[second])} is listed twice (also at [${first}]); list each once`,
      };
    }
    case 'minItems':
      return {
        path,
        message:
          Array.isArray(value) && value.length === 0
            ? `is empty; list at least ${params.limit}`
            : `lists ${Array.isArray(value) ? value.length : 0}; it needs at least ${params.limit}`,
      };
    default:
      return { path, message: `${show(value)} ${error.message ?? 'is invalid'}` };
  }
}

/** What to write instead of a value of the wrong type, where it is plain. */
function typeHint(expected: string, value: unknown): string {
  const types = expected.split(',');
  if (types.includes('array') && value !== undefined && !Array.isArray(value)) return `; write it as a list: [${show(value)}]`;
  if (types.includes('string') && (typeof value === 'number' || typeof value === 'boolean'))
    return `; write it in quotes: ${JSON.stringify(String(value))}`;
  return '';
}

/** The allowed key a misspelt one was most likely meant to be: at most a third of its letters off. */
function nearest(key: string, allowed: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of allowed) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance <= Math.max(1, Math.floor(name.length / 3)) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** A JSON pointer as path parts: `/tenants/0/api_keys` → ['tenants', 0, 'api_keys']. */
export function pathOf(pointer: string): (string | number)[] {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** Path parts as a person reads them: `tenants[0].api_keys`. */
export function pathText(path: ConfigPath): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '');
}

function within(pointer: string, at: string): boolean {
  return pointer === at || pointer.startsWith(`${at}/`);
}

function valueAt(data: unknown, pointer: string): unknown {
  let value = data;
  for (const part of pathOf(pointer)) value = (value as Record<string | number, unknown> | undefined)?.[part];
  return value;
}

/** A branch's own schema, where it is a `$ref` to the root's definitions. */
function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let target: unknown = root;
  for (const part of ref.slice(2).split('/')) target = (target as Schema | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return resolve((target as Schema | undefined) ?? {}, root);
}

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  return type === undefined ? [] : ([type].flat() as string[]);
}

function fitsType(schema: Schema, value: unknown): boolean {
  const types = typesOf(schema);
  if (types.length === 0) return true;
  return types.some((type) => {
    switch (type) {
      case 'array':
        return Array.isArray(value);
      case 'object':
        return isObject(value);
      case 'integer':
        return Number.isInteger(value);
      case 'null':
        return value === null;
      default:
        return typeof value === type;
    }
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeName(types: string): string {
  const names: Record<string, string> = {
    integer: 'an integer',
    array: 'a list',
    object: 'a mapping',
    string: 'a string',
    boolean: 'a boolean',
    number: 'a number',
    null: 'null',
  };
  return types
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}
