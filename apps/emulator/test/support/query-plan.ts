// What SQLite plans for a statement (EXPLAIN QUERY PLAN), as the tests that hold reads to their
// indexes compare it: one line per step, without the two steps of each page bound. A page's
// LIMIT and OFFSET are scalar subqueries (src/store/sql-page.ts), each a "SCALAR SUBQUERY n"
// reading a "SCAN CONSTANT ROW", which say nothing of how the rows are read.
import type { Db } from '../../src/store/database.js';

export function planSteps(db: Db, sql: string, params: unknown[] = []): string[] {
  const steps = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
  const kept: string[] = [];
  for (let i = 0; i < steps.length; i++) {
    // A page bound: the subquery and the constant row it reads, skipped together.
    if (/^SCALAR SUBQUERY \d+$/.test(steps[i]!) && steps[i + 1] === 'SCAN CONSTANT ROW') i++;
    else kept.push(steps[i]!);
  }
  return kept;
}
