// Assistants and their versions in SQLite (migration 8). A version is the whole configuration of
// an assistant as a create or an update made it, and never changes; an assistant is its current
// version (`assistants.version`), which an update moves to a new one and setLatest to any earlier
// one. Every method runs synchronously on the one connection; callers group writes with
// `transaction` (a savepoint of the commit group, store/commit-group.ts).
//
// The run engine names an assistant as a client does, by its ID or by a graph ID, and reads its
// current version through `resolve`.
import type { Assistant, AssistantCount, AssistantSearch, AssistantVersion, AssistantVersionSearch } from '@agentplane/agent-server';
import { matchesFilter } from '../../shared/canonical-json.js';
import { canonicalUuid, isUuid, uuidV5 } from '../../shared/ids.js';
import type { CommitGroup } from '../../store/commit-group.js';
import type { Db } from '../../store/database.js';
import type { AssistantDefaults } from '../graphs/scripted-graph.js';

/** The namespace of the UUID v5 LangGraph derives a graph's default assistant ID from. */
export const DEFAULT_ASSISTANT_NAMESPACE = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

const defaultAssistantIds = new Map<string, string>();
const MAX_KEPT_DEFAULT_IDS = 1000;

/**
 * The ID of a graph's default assistant, as LangGraph derives it. Kept per graph ID: every run
 * that names its assistant by graph asks, and the hash cost about 2% of such a run.
 */
export function defaultAssistantId(graphId: string): string {
  let id = defaultAssistantIds.get(graphId);
  if (id === undefined) {
    id = uuidV5(graphId, DEFAULT_ASSISTANT_NAMESPACE);
    if (defaultAssistantIds.size < MAX_KEPT_DEFAULT_IDS) defaultAssistantIds.set(graphId, id);
  }
  return id;
}

/** An assistant at its current version, every field present: what the answers and the run engine read. */
export type AssistantRow = Required<
  Pick<
    Assistant,
    'assistant_id' | 'graph_id' | 'config' | 'context' | 'metadata' | 'version' | 'name' | 'description' | 'created_at' | 'updated_at'
  >
>;

/** What a version is made of: the fields a create sets and an update changes. */
export type AssistantFields = Pick<AssistantRow, 'graph_id' | 'config' | 'context' | 'metadata' | 'name' | 'description'>;

type RawAssistant = Omit<AssistantRow, 'config' | 'context' | 'metadata'> & { config: string; context: string; metadata: string };
type RawVersion = Omit<AssistantVersion, 'config' | 'context' | 'metadata'> & { config: string; context: string; metadata: string };

type SearchQuery = Required<Pick<AssistantSearch, 'limit' | 'offset' | 'sort_by' | 'sort_order'>> & AssistantSearch;

const SORT_COLUMNS: Record<NonNullable<AssistantSearch['sort_by']>, string> = {
  assistant_id: 'a.assistant_id',
  graph_id: 'v.graph_id',
  name: 'v.name',
  created_at: 'a.created_at',
  updated_at: 'a.updated_at',
};
// An assistant is the row of its current version joined to its own.
const CURRENT_FROM = 'assistants a JOIN assistant_versions v ON v.assistant_id = a.assistant_id AND v.version = a.version';
const CURRENT = `SELECT a.assistant_id, v.graph_id, v.config, v.context, v.metadata, a.version, v.name, v.description, a.created_at, a.updated_at
  FROM ${CURRENT_FROM}`;
const VERSION_COLUMNS = 'assistant_id, version, graph_id, config, context, metadata, name, description, created_at';

/** The graphs the deployment serves, as the store needs them (GraphRegistry has this shape). */
export interface ServedGraphs {
  ids(): string[];
  /** A served graph, with the settings it gives its default assistant. */
  get(graphId: string): { assistant?: AssistantDefaults } | undefined;
}

export class AssistantStore {
  private readonly statements;
  /** Search statements by their SQL (a graph filter or not, a sort column and direction: 20 at most). */
  private readonly searchStatements = new Map<string, import('better-sqlite3').Statement>();
  /**
   * Assistants' rows as committed, by ID, kept since they were last read: every run reads its
   * assistant as it starts, and the join cost about 20 µs of each. A write empties it, and while a
   * write of this store is uncommitted (its group can still roll back) nothing is kept or read
   * from it; once that group ends, committed or not, it starts empty.
   */
  private readonly committedRows = new Map<string, RawAssistant>();
  private uncommittedWrite = false;

  constructor(
    private readonly db: Db,
    private readonly commits: CommitGroup,
    private readonly graphs: ServedGraphs,
  ) {
    this.statements = {
      get: db.prepare(`${CURRENT} WHERE a.assistant_id = ?`),
      insertAssistant: db.prepare(
        'INSERT INTO assistants (assistant_id, version, created_at, updated_at, system_graph_id) VALUES (?, ?, ?, ?, ?)',
      ),
      insertVersion: db.prepare(`INSERT INTO assistant_versions (${VERSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      highestVersion: db.prepare('SELECT max(version) FROM assistant_versions WHERE assistant_id = ?').pluck(),
      hasVersion: db.prepare('SELECT 1 FROM assistant_versions WHERE assistant_id = ? AND version = ?').pluck(),
      setCurrent: db.prepare('UPDATE assistants SET version = ?, updated_at = ? WHERE assistant_id = ?'),
      delete: db.prepare('DELETE FROM assistants WHERE assistant_id = ?'),
      versions: db.prepare(`SELECT ${VERSION_COLUMNS} FROM assistant_versions WHERE assistant_id = ? ORDER BY version DESC`),
      defaults: db.prepare('SELECT assistant_id, system_graph_id FROM assistants WHERE system_graph_id IS NOT NULL'),
      exists: db.prepare('SELECT 1 FROM assistants WHERE assistant_id = ?').pluck(),
    };
  }

  transaction<T>(work: () => T): T {
    return this.commits.transaction(work);
  }

  /**
   * The assistant a client or a run names: by its ID (a UUID in any form `format: uuid` takes), or
   * by the ID of a graph the deployment serves, which names that graph's default assistant. At
   * its current version; undefined when there is none (an unknown ID, a graph not served, or a
   * default assistant deleted since start-up).
   */
  resolve(assistantIdOrGraphId: string): AssistantRow | undefined {
    const assistantId = this.idOf(assistantIdOrGraphId);
    return assistantId === undefined ? undefined : this.get(assistantId);
  }

  /** The assistant ID a name stands for (see resolve), whether or not that assistant exists. */
  idOf(assistantIdOrGraphId: string): string | undefined {
    if (isUuid(assistantIdOrGraphId)) return canonicalUuid(assistantIdOrGraphId);
    return this.graphs.get(assistantIdOrGraphId) === undefined ? undefined : defaultAssistantId(assistantIdOrGraphId);
  }

  get(assistantId: string): AssistantRow | undefined {
    let raw = this.uncommittedWrite ? undefined : this.committedRows.get(assistantId);
    if (!raw) {
      raw = this.statements.get.get(assistantId) as RawAssistant | undefined;
      if (!raw) return undefined;
      if (!this.uncommittedWrite) {
        if (this.committedRows.size >= MAX_KEPT_ROWS) this.committedRows.clear();
        this.committedRows.set(assistantId, raw);
      }
    }
    // Parsed anew each time: callers get objects of their own.
    return parseAssistant(raw);
  }

  exists(assistantId: string): boolean {
    return this.statements.exists.get(assistantId) !== undefined;
  }

  /** Inserts an assistant at version 1 (call inside a transaction); `systemGraphId` marks a graph's default assistant. */
  insert(assistantId: string, fields: AssistantFields, now: string, systemGraphId: string | null = null): AssistantRow {
    this.writing();
    this.statements.insertAssistant.run(assistantId, 1, now, now, systemGraphId);
    this.insertVersion(assistantId, 1, fields, now);
    return { assistant_id: assistantId, ...fields, version: 1, created_at: now, updated_at: now };
  }

  /**
   * Makes `fields` the assistant's next version (its highest so far plus one) and its current one
   * (call inside a transaction, on an assistant that exists).
   */
  addVersion(assistantId: string, fields: AssistantFields, now: string): AssistantRow {
    this.writing();
    const version = ((this.statements.highestVersion.get(assistantId) as number | null) ?? 0) + 1;
    this.insertVersion(assistantId, version, fields, now);
    this.statements.setCurrent.run(version, now, assistantId);
    return this.get(assistantId)!;
  }

  /** Makes one of its versions the assistant's current one; false when it has no such version. */
  setCurrentVersion(assistantId: string, version: number, now: string): boolean {
    if (this.statements.hasVersion.get(assistantId, version) === undefined) return false;
    this.writing();
    this.statements.setCurrent.run(version, now, assistantId);
    return true;
  }

  /** Deletes an assistant with every version (ON DELETE CASCADE); its runs are the run engine's to delete (forgetAssistant). */
  delete(assistantId: string): boolean {
    this.writing();
    return this.statements.delete.run(assistantId).changes > 0;
  }

  /** A page of the assistants that match, in the order asked, and how many match. */
  search(query: SearchQuery): { assistants: AssistantRow[]; total: number } {
    const matches = this.matching(query, query);
    const page = matches.slice(query.offset, query.offset + query.limit);
    return { assistants: page.map(({ assistant_id }) => this.get(assistant_id)!), total: matches.length };
  }

  count(query: AssistantCount): number {
    return this.matching(query).length;
  }

  /** A page of an assistant's versions whose metadata matches, newest first. */
  versions(
    assistantId: string,
    query: Required<Pick<AssistantVersionSearch, 'limit' | 'offset'>> & AssistantVersionSearch,
  ): AssistantVersion[] {
    const matches = (this.statements.versions.all(assistantId) as RawVersion[])
      .map(parseVersion)
      .filter((version) => matchesFilter(version.metadata, query.metadata ?? {}));
    return matches.slice(query.offset, query.offset + query.limit);
  }

  /**
   * Brings the graphs' default assistants in line with the graphs served (at start-up, in a
   * transaction): each served graph gets its default assistant unless one with its ID exists (a
   * restart keeps it as it was left, updates included), and the default assistants of graphs no
   * longer served are deleted, with their versions (decision E19); answers their IDs, whose runs
   * go too. Assistants clients created are never touched.
   */
  ensureDefaults(now: string): string[] {
    const served = new Set(this.graphs.ids());
    const removed: string[] = [];
    for (const row of this.statements.defaults.all() as { assistant_id: string; system_graph_id: string }[]) {
      if (!served.has(row.system_graph_id) && this.delete(row.assistant_id)) removed.push(row.assistant_id);
    }
    for (const graphId of served) {
      const assistantId = defaultAssistantId(graphId);
      if (this.exists(assistantId)) continue;
      // The graph's config may give its default assistant settings; `created_by: system` marks it whatever they say.
      const defaults = this.graphs.get(graphId)?.assistant;
      this.insert(
        assistantId,
        {
          graph_id: graphId,
          config: defaults?.config ?? {},
          context: defaults?.context ?? {},
          metadata: { ...(defaults?.metadata ?? {}), created_by: 'system' },
          name: graphId,
          description: defaults?.description ?? null,
        },
        now,
        graphId,
      );
    }
    return removed;
  }

  /** Before any write: the rows kept go, and none are kept until the write's group has ended. */
  private writing(): void {
    this.committedRows.clear();
    if (this.uncommittedWrite) return;
    this.uncommittedWrite = true;
    this.commits.afterCommit(() => {
      this.committedRows.clear();
      this.uncommittedWrite = false;
    });
  }

  private insertVersion(assistantId: string, version: number, fields: AssistantFields, now: string): void {
    this.statements.insertVersion.run(
      assistantId,
      version,
      fields.graph_id,
      JSON.stringify(fields.config),
      JSON.stringify(fields.context),
      JSON.stringify(fields.metadata),
      fields.name,
      fields.description,
      now,
    );
  }

  /**
   * The ID, name and metadata of every assistant the filters match, in the order asked
   * (created_at, newest first, without one). The graph filter and the order are SQL's; the name (a
   * part of it, ignoring case, as JavaScript lowercases text, not only ASCII) and the metadata
   * (deep equality per key) are checked here, the metadata parsed only when a filter needs it. A
   * deployment has few assistants (one per graph, and those clients configure), so reading them
   * all is cheaper than indexing them as threads are. Only the columns the filters read are read:
   * building a row's object costs about half a microsecond per column (1.1 ms for 200 whole rows,
   * 0.2 ms for two columns); a page's assistants are then read whole by ID.
   */
  private matching(
    filters: AssistantCount,
    order: Pick<SearchQuery, 'sort_by' | 'sort_order'> = DEFAULT_ORDER,
  ): Pick<RawAssistant, 'assistant_id' | 'name' | 'metadata'>[] {
    const direction = order.sort_order === 'asc' ? 'ASC' : 'DESC';
    const where = filters.graph_id === undefined ? '' : ' WHERE v.graph_id = ?';
    const sql = `SELECT a.assistant_id, v.name, v.metadata FROM ${CURRENT_FROM}${where} ORDER BY ${SORT_COLUMNS[order.sort_by]} ${direction}, a.rowid ${direction}`;
    let statement = this.searchStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.searchStatements.set(sql, statement);
    }
    const rows = (filters.graph_id === undefined ? statement.all() : statement.all(filters.graph_id)) as Pick<
      RawAssistant,
      'assistant_id' | 'name' | 'metadata'
    >[];
    const part = filters.name?.toLowerCase();
    const metadata = filters.metadata !== undefined && Object.keys(filters.metadata).length > 0 ? filters.metadata : undefined;
    return rows.filter(
      (raw) =>
        (part === undefined || raw.name.toLowerCase().includes(part)) &&
        (metadata === undefined || matchesFilter(JSON.parse(raw.metadata), metadata)),
    );
  }
}

const DEFAULT_ORDER = { sort_by: 'created_at', sort_order: 'desc' } as const;
/** Assistants' rows kept at most (a deployment has few assistants; a client making many starts it over). */
const MAX_KEPT_ROWS = 1000;

function parseAssistant(raw: RawAssistant): AssistantRow {
  return { ...raw, config: JSON.parse(raw.config), context: JSON.parse(raw.context), metadata: JSON.parse(raw.metadata) };
}

function parseVersion(raw: RawVersion): AssistantVersion {
  return { ...raw, config: JSON.parse(raw.config), context: JSON.parse(raw.context), metadata: JSON.parse(raw.metadata) };
}
