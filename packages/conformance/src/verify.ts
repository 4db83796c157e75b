// How a behaviour check states what it expects: each unmet expectation is a finding, and the
// check goes on so that one run reports everything it can see. `stop` ends a check whose next
// steps depend on what just failed.
import type { Finding } from './model.js';

/** Ends a check early; its findings so far stand. */
export class CheckStopped extends Error {
  override readonly name = 'CheckStopped';
}

/** Ends a check that cannot run against this server as configured (it needs an option the run lacks); no finding. */
export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
}

/**
 * `differs`: this expectation is the rule on which the check's declared difference lies, so
 * that, in a check whose `differenceIn` is `marked findings`, only its failure is that difference.
 */
export interface Expectation {
  differs?: boolean;
}

/** A finding of a behaviour check, before the runner gives it the check's difference. */
export interface CheckFinding extends Finding {
  differs?: boolean;
}

export class Verify {
  readonly findings: CheckFinding[] = [];

  /** Records `message` unless `condition` holds; returns `condition`. */
  that(condition: boolean, message: string, expectation: Expectation = {}): boolean {
    if (!condition) this.findings.push(expectation.differs ? { message, differs: true } : { message });
    return condition;
  }

  /** Deep equality (object keys in any order). */
  equal(actual: unknown, expected: unknown, what: string, expectation: Expectation = {}): boolean {
    return this.that(canonical(actual) === canonical(expected), `${what}: expected ${show(expected)}, got ${show(actual)}`, expectation);
  }

  /** Ends the check as skipped, `reason` saying what it needs. Only before the check found anything. */
  skip(reason: string): never {
    throw new CheckSkipped(reason);
  }

  /** Records the finding and ends the check. */
  stop(message: string): never {
    this.findings.push({ message });
    throw new CheckStopped(message);
  }
}

/** JSON with object keys sorted, so that key order never decides equality. */
export function canonical(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
    .join(',')}}`;
}

export function show(value: unknown): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
