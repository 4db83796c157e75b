// The LIMIT and OFFSET of a page read. Written as `LIMIT ? OFFSET ?`, the SQLite that
// better-sqlite3 bundles lets its planner read the limit's bound value, so every new binding
// expires the statement and the next step compiles it again: a profile of store searches showed
// SQLite's parser and planner under every page read, and a page of ten store items cost 12 µs
// instead of 6.5. A scalar subquery gives the same page from the same bound values while keeping
// them out of the planner's sight; the plans stay as they were (the EXPLAIN QUERY PLAN tests of
// store.test.ts and store-items.test.ts).

/** `LIMIT ? OFFSET ?`, compiled once: bind the limit, then the offset. */
export const LIMIT_OFFSET = 'LIMIT (SELECT ?) OFFSET (SELECT ?)';

/** `LIMIT ?`, compiled once. */
export const LIMIT = 'LIMIT (SELECT ?)';
