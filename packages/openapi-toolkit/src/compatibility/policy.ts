// What counts as breaking for the people who installed our packages: decision R1 in
// docs/decisions.md, applied to oasdiff's findings.
//
// oasdiff rates each change for a generic consumer. Our consumers are the generated clients
// (closed TypeScript unions for enums, request bodies the server checks as closed objects) and
// code that switches over those unions, so:
// - everything oasdiff calls an error or a warning breaks someone: a removed or retyped response
//   field, a narrowed or newly bounded request, a removed request field (request schemas are
//   closed, so an old client sending it gets a 422), and a new value of a response enum (an
//   exhaustive switch written against the old union meets a value it has no branch for);
// - a changed or removed request default also breaks: a client that omits the field silently
//   gets another behaviour (oasdiff rates it information only);
// - everything else it reports is additive (new operations, optional request fields, response
//   fields, looser bounds, new request enum values);
// - a changed description or example that oasdiff does not report is a documentation change.
import type { ApiChange } from './api-diff.js';

/** The semver impact of a change on a consumer: major breaks one, minor adds, patch documents. */
export type Impact = 'major' | 'minor' | 'patch';

/** oasdiff rules rated information only that break a client of this project's APIs. */
export const RAISED_TO_BREAKING: ReadonlySet<string> = new Set([
  'request-body-default-value-changed',
  'request-body-default-value-removed',
  'request-property-default-value-changed',
  'request-property-default-value-removed',
]);

export interface ClassifiedChange extends ApiChange {
  impact: Impact;
}

export function classifyChange(change: ApiChange): ClassifiedChange {
  const breaking = change.level >= 2 || RAISED_TO_BREAKING.has(change.id);
  return { ...change, impact: breaking ? 'major' : 'minor' };
}

/** The impact of a whole revision: its largest change, or patch when only prose differs. */
export function overallImpact(changes: readonly ClassifiedChange[], documentsDiffer: boolean): Impact | 'none' {
  if (changes.some((c) => c.impact === 'major')) return 'major';
  if (changes.length > 0) return 'minor';
  return documentsDiffer ? 'patch' : 'none';
}

const RANK: Record<Impact | 'none', number> = { none: 0, patch: 1, minor: 2, major: 3 };

export function atLeast(declared: Impact | 'none', required: Impact | 'none'): boolean {
  return RANK[declared] >= RANK[required];
}

export function largest(levels: Iterable<Impact | 'none'>): Impact | 'none' {
  let top: Impact | 'none' = 'none';
  for (const level of levels) if (RANK[level] > RANK[top]) top = level;
  return top;
}

/**
 * The version bump a release must make for a change of this impact. Semver gives 0.x versions
 * no compatibility promise, and the convention npm's caret ranges follow (^0.2.0 accepts 0.2.x
 * only) shifts every level down by one: a breaking change bumps the minor, the rest the patch.
 */
export function requiredBump(impact: Impact | 'none', version: string): Impact | 'none' {
  if (impact === 'none' || !version.startsWith('0.')) return impact;
  return impact === 'major' ? 'minor' : 'patch';
}

/** The bump between two x.y.z versions, or 'none' when `to` is not above `from`. */
export function versionBump(from: string, to: string): Impact | 'none' {
  const [a, b] = [parseVersion(from), parseVersion(to)];
  if (b[0] > a[0]) return 'major';
  if (b[0] < a[0]) return 'none';
  if (b[1] > a[1]) return 'minor';
  if (b[1] < a[1]) return 'none';
  return b[2] > a[2] ? 'patch' : 'none';
}

function parseVersion(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`"${version}" is not an x.y.z version`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}
