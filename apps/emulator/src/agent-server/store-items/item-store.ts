// The store's items in SQLite (migration 11, decision E22): the deployment's long-term memory,
// by namespace and key. This is the one implementation of the store's semantics: the HTTP
// handlers (item-handlers.ts) call it, and so can anything else in the process, such as a graph
// step that remembers. Like the other stores, every method runs synchronously on the one
// connection, and each write is a transaction of the commit group (a savepoint of the request's).
import type {
  StoreItem,
  StoreItemPut,
  StoreItemSearch,
  StoreItemSearchResult,
  StoreNamespaceList,
  StoreNamespaceListResult,
  StoreSearchItem,
} from '@agentplane/agent-server';
import { JsonText } from '../../contract/json-text.js';
import { StoreNamespaceLabelSchema } from '../../generated/agent-server/contract.js';
import type { CommitGroup } from '../../store/commit-group.js';
import type { Db } from '../../store/database.js';
import { LIMIT_OFFSET } from '../../store/sql-page.js';
import { indexedText, lexicalScore, wordsOf } from './lexical-score.js';
import { matchesStoreFilter } from './store-filter.js';

type Namespace = readonly string[];

/** Joins a namespace's labels: U+001F is in no label and sorts before every character a label may hold. */
const SEPARATOR = '\u001f';
/** The character after SEPARATOR: every namespace below prefix P is in [P + SEPARATOR, P + AFTER). */
const AFTER = '\u0020';
const MINUTE_MS = 60_000;

const LABEL = new RegExp(StoreNamespaceLabelSchema.pattern, 'u');

/** A namespace or key an in-process caller gave that the API would refuse (the HTTP layer refuses it before). */
export class StoreInputError extends Error {}

/** An item as a search or a read takes it from SQLite: its answer as JSON text, and what else it needs. */
interface RawItem {
  /** The item as the API answers it, joined by SQLite (decision E14): `StoreItem` as JSON text. */
  json: string;
  /** The row to refresh, when the item has a time to live; else null. */
  refresh: number | null;
  /** What `query` reads of it (StoreItemIndex, as JSON), for the searches JavaScript finishes. */
  index_fields?: string | null;
}

// An item's row keeps its answer whole (`answer`: StoreItem as JSON text, written by each put), so
// a read is one column per item, handed to the HTTP layer as it is (decision E22).
const READ_COLUMNS = 'answer AS json, CASE WHEN ttl_minutes IS NULL THEN NULL ELSE rowid END AS refresh';

export interface ItemStoreOptions {
  /** The clock of times to live and timestamps (tests move it). */
  now?: () => number;
}

export class ItemStore {
  private readonly statements;
  /** A search's statement by its SQL (its prefix and the filter fields SQLite compares). */
  private readonly searchStatements = new Map<string, import('better-sqlite3').Statement>();
  private readonly now: () => number;
  private earliestExpiry = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Db,
    private readonly commits: CommitGroup,
    options: ItemStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.statements = {
      get: db.prepare(`SELECT ${READ_COLUMNS} FROM store_items WHERE namespace = ? AND key = ?`),
      createdAt: db.prepare('SELECT created_at FROM store_items WHERE namespace = ? AND key = ?').pluck(),
      upsert: db.prepare(
        `INSERT INTO store_items (namespace, key, answer, index_fields, created_at, ttl_minutes, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (namespace, key) DO UPDATE SET answer = excluded.answer, index_fields = excluded.index_fields,
           ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at`,
      ),
      delete: db.prepare('DELETE FROM store_items WHERE namespace = ? AND key = ?'),
      refresh: db.prepare('UPDATE store_items SET expires_at = ? + ttl_minutes * 60000 WHERE rowid = ?'),
      namespaces: db.prepare('SELECT DISTINCT namespace FROM store_items ORDER BY namespace').pluck(),
      namespacesUnder: db
        .prepare('SELECT DISTINCT namespace FROM store_items WHERE namespace >= ? AND namespace < ? ORDER BY namespace')
        .pluck(),
      deleteExpired: db.prepare('DELETE FROM store_items WHERE expires_at <= ?'),
      earliestExpiry: db.prepare('SELECT min(expires_at) FROM store_items WHERE expires_at IS NOT NULL').pluck(),
    };
  }

  /** Runs `work` all or nothing, inside the current commit group. */
  transaction<T>(work: () => T): T {
    return this.commits.transaction(work);
  }

  /** Stores an item, replacing the one at its namespace and key (whose `created_at` stays). */
  put(item: StoreItemPut): void {
    checkNamespace(item.namespace);
    if (item.key.length === 0) throw new StoreInputError('an item key cannot be empty');
    const nowMs = this.now();
    const now = new Date(nowMs).toISOString();
    const ttl = item.ttl ?? null;
    const expiresAt = ttl === null ? null : Math.ceil(nowMs + ttl * MINUTE_MS);
    const namespace = joined(item.namespace);
    this.transaction(() => {
      // A put at an existing key keeps the item's creation time.
      const createdAt = (this.statements.createdAt.get(namespace, item.key) as string | undefined) ?? now;
      const answer: StoreItem = {
        namespace: [...item.namespace],
        key: item.key,
        value: item.value,
        created_at: createdAt,
        updated_at: now,
      };
      const index = item.index === undefined || item.index === null ? null : JSON.stringify(item.index);
      this.statements.upsert.run(namespace, item.key, JSON.stringify(answer), index, createdAt, ttl, expiresAt);
    });
    if (expiresAt !== null && expiresAt < this.earliestExpiry) this.earliestExpiry = expiresAt;
  }

  /** The item at the namespace and key, or null; with `refreshTtl` (the default) its time to live starts again. */
  get(namespace: Namespace, key: string, options: { refreshTtl?: boolean | null } = {}): StoreItem | null {
    const text = this.getText(namespace, key, options);
    return text && (JSON.parse(text.text) as StoreItem);
  }

  /** `get`, answered as the JSON text of the item. */
  getText(namespace: Namespace, key: string, options: { refreshTtl?: boolean | null } = {}): JsonText<StoreItem> | null {
    const raw = this.commits.read(() => this.statements.get.get(joined(namespace), key) as RawItem | undefined);
    if (!raw) return null;
    if (options.refreshTtl !== false) this.refresh([raw]);
    return new JsonText(raw.json);
  }

  /** Deletes the item at the namespace and key; whether there was one. */
  delete(namespace: Namespace, key: string): boolean {
    return this.transaction(() => this.statements.delete.run(joined(namespace), key).changes > 0);
  }

  /**
   * One page of the items under a namespace prefix (label by label) that match the filter, namespace
   * by namespace in label order and in the order they were first stored within one, or ranked by
   * `query` (lexical-score.ts), as searchStoreItems.
   */
  search(request: StoreItemSearch): StoreSearchItem[] {
    return (JSON.parse(this.searchText(request).text) as StoreItemSearchResult).items;
  }

  /** `search`, answered as the JSON text of the API's answer (`{"items": [...]}`). */
  searchText(request: StoreItemSearch): JsonText<StoreItemSearchResult> {
    const limit = request.limit ?? 10;
    const offset = request.offset ?? 0;
    const queryWords = request.query === undefined ? new Set<string>() : wordsOf(request.query);
    const { sql, parameters, rest, paged } = searchSql(request, queryWords.size > 0);
    const raws = this.commits.read(() => {
      let statement = this.searchStatements.get(sql);
      if (!statement) {
        statement = this.db.prepare(sql);
        this.searchStatements.set(sql, statement);
      }
      return statement.all(...parameters) as RawItem[];
    });
    let page: RawItem[];
    let texts: string[];
    if (paged) {
      page = raws;
      texts = raws.map((raw) => raw.json);
    } else {
      const matches = raws
        .map((raw) => ({ raw, item: JSON.parse(raw.json) as StoreSearchItem }))
        .filter(({ item }) => rest === undefined || matchesStoreFilter(item.value, rest));
      if (queryWords.size > 0) {
        for (const match of matches) {
          const text = indexedText(match.item.value, indexFieldsOf(match.raw));
          if (text !== undefined) match.item.score = lexicalScore(queryWords, text)!;
        }
        // A stable sort: equal scores, and the unscored after them, keep the order without a query.
        matches.sort((a, b) => (b.item.score ?? -1) - (a.item.score ?? -1));
      }
      const kept = matches.slice(offset, offset + limit);
      page = kept.map(({ raw }) => raw);
      texts = kept.map(({ item }) => JSON.stringify(item));
    }
    if (request.refresh_ttl !== false) this.refresh(page);
    return new JsonText(`{"items":[${texts.join(',')}]}`);
  }

  /** One page of the namespaces holding items that match the prefix and suffix (`*` any label), cut to `max_depth`, as listStoreNamespaces. */
  listNamespaces(request: StoreNamespaceList): StoreNamespaceListResult {
    const prefix = request.prefix ?? [];
    const suffix = request.suffix ?? [];
    // The labels before the first wildcard narrow the range read; the rest is checked here.
    const fixed = prefix.slice(0, prefix.includes('*') ? prefix.indexOf('*') : prefix.length);
    const texts = this.commits.read(
      () => (fixed.length === 0 ? this.statements.namespaces.all() : this.statements.namespacesUnder.all(...range(fixed))) as string[],
    );
    const seen = new Set<string>();
    const namespaces: string[][] = [];
    for (const text of texts) {
      let labels = text.split(SEPARATOR);
      if (!fitsAt(labels, prefix, 0) || !fitsAt(labels, suffix, labels.length - suffix.length)) continue;
      if (request.max_depth !== undefined) labels = labels.slice(0, request.max_depth);
      const key = labels.join(SEPARATOR);
      if (seen.has(key)) continue;
      seen.add(key);
      namespaces.push(labels);
    }
    const offset = request.offset ?? 0;
    return { namespaces: namespaces.slice(offset, offset + (request.limit ?? 100)) };
  }

  /** Deletes the items whose time to live ran out by `nowMs`; how many. */
  purgeExpired(nowMs: number): number {
    if (nowMs < this.earliestExpiry) return 0;
    const expired = this.transaction(() => this.statements.deleteExpired.run(nowMs).changes);
    this.earliestExpiry = (this.statements.earliestExpiry.get() as number | null) ?? Number.POSITIVE_INFINITY;
    return expired;
  }

  /** Restarts the time to live of the items that have one. */
  private refresh(raws: RawItem[]): void {
    const rows = raws.flatMap((raw) => (raw.refresh === null ? [] : [raw.refresh]));
    if (rows.length === 0) return;
    const nowMs = this.now();
    this.transaction(() => {
      for (const row of rows) this.statements.refresh.run(nowMs, row);
    });
  }
}

/** Refuses a namespace the API would refuse: none, or a label that is empty, holds a period or a control character. */
function checkNamespace(namespace: Namespace): void {
  if (namespace.length === 0) throw new StoreInputError('a namespace needs at least one label');
  for (const label of namespace)
    if (!LABEL.test(label))
      throw new StoreInputError(`namespace label ${JSON.stringify(label)} is empty or holds a period or a control character`);
}

const joined = (namespace: Namespace) => namespace.join(SEPARATOR);

/**
 * The range of a prefix's namespaces: from the prefix itself to the last namespace below it (the
 * prefix, then SEPARATOR and more labels; no label holds a character below AFTER).
 */
function range(prefix: Namespace): [string, string] {
  const text = joined(prefix);
  return [text, text + AFTER];
}

/**
 * How SQLite reads a search: its SQL and parameters. SQLite pages (LIMIT and OFFSET) when it alone
 * decides which items match and in what order: no `rest` of the filter is left for JavaScript and
 * no `query` ranks them (`ranked`); otherwise it reads every match, in order, for searchText to finish.
 */
export function searchSql(
  request: StoreItemSearch,
  ranked: boolean,
): { sql: string; parameters: unknown[]; rest?: Record<string, unknown>; paged: boolean } {
  const { where, parameters, rest } = searchQuery(request.namespace_prefix, request.filter ?? {});
  if (rest === undefined && !ranked) {
    const sql = `SELECT ${READ_COLUMNS} FROM store_items${where} ORDER BY namespace, rowid ${LIMIT_OFFSET}`;
    return { sql, parameters: [...parameters, request.limit ?? 10, request.offset ?? 0], paged: true };
  }
  const sql = `SELECT ${READ_COLUMNS}, index_fields FROM store_items${where} ORDER BY namespace, rowid`;
  return { sql, parameters, ...(rest === undefined ? {} : { rest }), paged: false };
}

/** The top-level fields SQLite compares (see searchQuery): letters, digits and a few separators. */
const SQL_PATH_FIELD = /^[\p{L}\p{N}_ .:@/+-]{1,256}$/u;

/** The SQLite type (`json_type`) of each filter value SQLite can compare, by its JavaScript type. */
const SQL_JSON_TYPES: Record<string, string> = { string: "'text'", number: "'integer', 'real'" };

/**
 * A search's SQL: the prefix's range, and the filter's fields that hold a string, a number, a
 * boolean or null, which SQLite compares in the stored JSON (equality is deep equality for them);
 * `rest` is what is left for JavaScript (lists, objects, operators), undefined when nothing is.
 */
function searchQuery(
  prefix: Namespace,
  filter: Record<string, unknown>,
): { where: string; parameters: unknown[]; rest?: Record<string, unknown> } {
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  if (prefix.length > 0) {
    conditions.push('namespace >= ? AND namespace < ?');
    parameters.push(...range(prefix));
  }
  const rest: Record<string, unknown> = {};
  for (const [field, wanted] of Object.entries(filter)) {
    const path = `$.value."${field}"`;
    // A field SQLite's JSON path reads as a quoted label is one of these characters only; any
    // other (a quote, a backslash, a control character) is compared here, never misread there.
    if (!SQL_PATH_FIELD.test(field) || (wanted !== null && typeof wanted === 'object')) {
      rest[field] = wanted;
      continue;
    }
    if (wanted === null || typeof wanted === 'boolean') {
      conditions.push('json_type(answer, ?) = ?');
      parameters.push(path, wanted === null ? 'null' : String(wanted));
    } else {
      conditions.push(`json_type(answer, ?) IN (${SQL_JSON_TYPES[typeof wanted]}) AND json_extract(answer, ?) = ?`);
      parameters.push(path, path, wanted);
    }
  }
  return {
    where: conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '',
    parameters,
    ...(Object.keys(rest).length > 0 ? { rest } : {}),
  };
}

/** Whether `pattern` (`*` any label) fits the labels from `at` on. */
function fitsAt(labels: readonly string[], pattern: Namespace, at: number): boolean {
  if (at < 0 || at + pattern.length > labels.length) return false;
  return pattern.every((label, i) => label === '*' || label === labels[at + i]);
}

function indexFieldsOf(raw: RawItem): string[] | false | null {
  return raw.index_fields == null ? null : (JSON.parse(raw.index_fields) as string[] | false);
}
