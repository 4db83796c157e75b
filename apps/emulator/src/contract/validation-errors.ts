// Turns Ajv's errors into the spec's ValidationError items (`loc`, `msg`, `type`), worded and
// typed as FastAPI/pydantic servers of these APIs word them, so a client sees the same 422 from
// the emulator as from a real server: `loc` names the exact field, unknown fields included.
// The Ajv instance must run with `allErrors` and `verbose` (union errors carry their branches).
import type { components } from '@agentplane/agent-server';
import type { ErrorObject } from 'ajv';

/** One item of a 422's `detail`: the spec's ValidationError. */
export type ValidationIssue = components['schemas']['ValidationError'];

export type Location = 'body' | 'path' | 'query' | 'header';

/** Converts the errors of one validation (of `location`) into ValidationError items. */
export function toValidationIssues(errors: ErrorObject[], location: Location, unions: UnionSupport): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of resolveUnions(errors, location, unions)) {
    const issue = 'loc' in error ? error : describe(error, location);
    const key = JSON.stringify([issue.loc, issue.type]);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

type Resolved = ErrorObject | ValidationIssue;

/** What the union resolution needs from the validator: a check of one branch, a branch's title and form. */
export interface UnionSupport {
  validateBranch(schema: unknown, value: unknown): ErrorObject[];
  titleOf(schema: unknown): string | undefined;
  /** The branch's JSON type, and its tags: the required fields whose value is a `const`. */
  formOf(schema: unknown): { type: string | undefined; tags: Readonly<Record<string, unknown>> };
}

/**
 * With `allErrors`, a failed `oneOf`/`anyOf` reports every branch's errors, with schema paths
 * that cannot be traced back through `$ref`s. So each failed union is re-checked branch by
 * branch, and only the branch the input came closest to is reported (its errors lie deepest in
 * the input): for a nullable object, that is the object's own field errors. When no branch stands
 * out (the input is none of the forms), one error names the accepted forms instead. A union
 * whose forms have a tag is resolved by the tag first (namedByTag).
 */
function resolveUnions(all: ErrorObject[], location: Location, unions: UnionSupport): Resolved[] {
  // A failed `if`/`then` is reported twice: as the `then` keyword's own errors, which name the
  // field, and as an `if` error on the object, which names nothing; only the first are kept, at
  // every level (a union's branches are validated again below).
  const errors = all.filter((e) => e.keyword !== 'if');
  // The outermost union: the shallowest, and of unions at one depth (a union whose branch is a
  // union) the one Ajv reports last, since it reports a union after its branches' errors.
  const found = errors.map((e, i) => ({ e, i })).filter(({ e }) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  const union = found.sort((a, b) => pathDepth(a.e) - pathDepth(b.e) || b.i - a.i)[0]?.e;
  if (!union) return errors;
  const at = union.instancePath;
  const outside = errors.filter((e) => e !== union && e.instancePath !== at && !e.instancePath.startsWith(`${at}/`));
  const branches = Array.isArray(union.schema) ? (union.schema as unknown[]) : [];
  if (union.keyword === 'oneOf' && (union.params as { passingSchemas?: unknown }).passingSchemas) {
    // Several forms matched: only possible with overlapping forms; say so rather than guess.
    return [
      ...resolveUnions(outside, location, unions),
      issueAt(union, location, 'Input matches more than one of the accepted forms', 'union_ambiguous'),
    ];
  }
  const named = namedByTag(branches, union.data, unions);
  const namedErrors = named
    ? unions.validateBranch(named.branch, union.data).map((e) => ({ ...e, instancePath: `${at}${e.instancePath}` }))
    : [];
  if (named && namedErrors.length > 0) {
    const issues = resolveUnions(namedErrors, location, unions).map((issue) =>
      named.tag ? withTag(issue, location, at, named.tag) : issue,
    );
    return [...resolveUnions(outside, location, unions), ...issues];
  }
  const ranked = branches
    .map((schema) =>
      unions
        .validateBranch(schema, union.data)
        // A failed `if` names nothing (its `then` errors do): counted, it would make a branch look further off.
        .filter((e) => e.keyword !== 'if')
        .map((e) => ({ ...e, instancePath: `${at}${e.instancePath}` })),
    )
    .filter((list) => list.length > 0)
    .sort((a, b) => depth(b) - depth(a) || a.length - b.length);
  const [best, runnerUp] = ranked;
  const unionDepth = pathDepth(union);
  const bestStandsOut =
    best !== undefined && depth(best) > unionDepth && (!runnerUp || depth(best) > depth(runnerUp) || best.length < runnerUp.length);
  const chosen: Resolved[] = bestStandsOut
    ? resolveUnions(best, location, unions)
    : [issueAt(union, location, unionMessage(branches.map((b) => unions.titleOf(b))), 'union_tag_invalid')];
  return [...resolveUnions(outside, location, unions), ...chosen];
}

/**
 * A union of objects told apart by one tag field (a message's `type`) is a discriminated union:
 * the input's tag names its form, whatever else the input holds, so `{"role": "user", "type":
 * "ai"}` is an `ai` message whose role is wrong, not a role-form message with a stray `type`.
 * An input without the tag names the one object form that has none (the role form of a message).
 * Undefined when the union has no single tag field, or the input names no form or several.
 */
function namedByTag(branches: unknown[], data: unknown, unions: UnionSupport): { branch: unknown; tag?: [string, unknown] } | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const forms = branches.map((branch) => ({ branch, ...unions.formOf(branch) }));
  const fields = new Set(forms.flatMap((form) => Object.keys(form.tags)));
  if (fields.size !== 1) return undefined;
  const [field] = fields as unknown as [string];
  const given = Object.hasOwn(data, field);
  const value = (data as Record<string, unknown>)[field];
  const named = forms.filter((form) =>
    given ? Object.hasOwn(form.tags, field) && form.tags[field] === value : form.type === 'object' && !Object.hasOwn(form.tags, field),
  );
  if (named.length !== 1) return undefined;
  return { branch: named[0]!.branch, ...(given ? { tag: [field, value] as [string, unknown] } : {}) };
}

/**
 * An issue of a form its tag named: a field whose allowed values that form fixes (a message's
 * `role`) says which tag it was held to, so a contradiction names both fields.
 */
function withTag(issue: Resolved, location: Location, at: string, [field, value]: [string, unknown]): Resolved {
  const ownField = (e: ErrorObject) => e.instancePath.startsWith(`${at}/`) && !e.instancePath.slice(at.length + 1).includes('/');
  if ('loc' in issue || !(issue.keyword === 'enum' || issue.keyword === 'const') || !ownField(issue)) return issue;
  const described = describe(issue, location);
  return { ...described, msg: `${described.msg}, as ${field} is ${typeof value === 'string' ? `'${value}'` : JSON.stringify(value)}` };
}

function depth(list: ErrorObject[]): number {
  return Math.max(...list.map((e) => pathDepth(e)));
}

function unionMessage(titles: (string | undefined)[]): string {
  return titles.length > 0 && titles.every(Boolean)
    ? `Input should be one of: ${titles.join(', ')}`
    : 'Input does not match any of the accepted forms';
}

function pathDepth(error: ErrorObject): number {
  const base = error.instancePath === '' ? 0 : error.instancePath.split('/').length - 1;
  // A missing or unknown property is an error about the field below the object.
  return error.keyword === 'required' || error.keyword === 'additionalProperties' ? base + 1 : base;
}

function issueAt(error: ErrorObject, location: Location, msg: string, type: string): ValidationIssue {
  return { loc: [location, ...instanceLoc(error.instancePath)], msg, type };
}

function instanceLoc(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

const TYPE_NAMES: Record<string, [type: string, parsing: string, msg: string]> = {
  string: ['string_type', 'string_type', 'Input should be a valid string'],
  integer: ['int_type', 'int_parsing', 'Input should be a valid integer'],
  number: ['float_type', 'float_parsing', 'Input should be a valid number'],
  boolean: ['bool_type', 'bool_parsing', 'Input should be a valid boolean'],
  object: ['dict_type', 'dict_type', 'Input should be a valid dictionary or object'],
  array: ['list_type', 'list_type', 'Input should be a valid list'],
  null: ['none_required', 'none_required', 'Input should be None'],
};

function describe(error: ErrorObject, location: Location): ValidationIssue {
  const loc: (string | number)[] = [location, ...instanceLoc(error.instancePath)];
  const params = error.params as Record<string, unknown>;
  // Path and query values arrive as text: a wrong type there is a parsing failure.
  const fromText = location !== 'body';
  switch (error.keyword) {
    case 'required':
      return { loc: [...loc, String(params.missingProperty)], msg: 'Field required', type: 'missing' };
    case 'additionalProperties':
      return { loc: [...loc, String(params.additionalProperty)], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'unevaluatedProperties':
      return { loc: [...loc, String(params.unevaluatedProperty)], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'type': {
      const expected = String(params.type)
        .split(',')
        .filter((t) => t !== 'null');
      const first = expected[0] ?? 'null';
      const [type, parsing, msg] = TYPE_NAMES[first] ?? ['type_error', 'type_error', `Input should be of type ${params.type}`];
      return { loc, msg: fromText && first === 'boolean' ? `${msg}, unable to interpret input` : msg, type: fromText ? parsing : type };
    }
    case 'format':
      if (params.format === 'uuid') return { loc, msg: 'Input should be a valid UUID', type: 'uuid_parsing' };
      if (params.format === 'date-time') return { loc, msg: 'Input should be a valid datetime', type: 'datetime_parsing' };
      return { loc, msg: `Input should be a valid ${params.format}`, type: `${params.format}_parsing` };
    case 'minimum':
      return { loc, msg: `Input should be greater than or equal to ${params.limit}`, type: 'greater_than_equal' };
    case 'maximum':
      return { loc, msg: `Input should be less than or equal to ${params.limit}`, type: 'less_than_equal' };
    case 'exclusiveMinimum':
      return { loc, msg: `Input should be greater than ${params.limit}`, type: 'greater_than' };
    case 'exclusiveMaximum':
      return { loc, msg: `Input should be less than ${params.limit}`, type: 'less_than' };
    case 'minLength':
      return {
        loc,
        msg: `String should have at least ${params.limit} character${params.limit === 1 ? '' : 's'}`,
        type: 'string_too_short',
      };
    case 'maxLength':
      return { loc, msg: `String should have at most ${params.limit} characters`, type: 'string_too_long' };
    case 'minItems':
      return { loc, msg: `List should have at least ${params.limit} item${params.limit === 1 ? '' : 's'}`, type: 'too_short' };
    case 'maxItems':
      return { loc, msg: `List should have at most ${params.limit} items`, type: 'too_long' };
    case 'pattern':
      return { loc, msg: `String should match pattern '${params.pattern}'`, type: 'string_pattern_mismatch' };
    case 'enum':
      return {
        loc,
        msg: `Input should be ${listAlternatives((params.allowedValues as unknown[]).filter((v) => v !== null))}`,
        type: 'enum',
      };
    case 'const':
      return { loc, msg: `Input should be ${JSON.stringify(params.allowedValue)}`, type: 'literal_error' };
    default:
      return { loc, msg: error.message ?? 'Invalid value', type: 'value_error' };
  }
}

function listAlternatives(values: unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length <= 1 ? (quoted[0] ?? 'a valid value') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}
