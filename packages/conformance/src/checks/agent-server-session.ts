// What the agent server checks share: the typed client (through the recording fetch), the
// run's tag, and the threads, assistants, crons and store items the run created. Every thread,
// assistant and cron carries the tag in its metadata, every store item lives under a namespace
// of the tag and the run's ID, every search and count filters on them, and the runner deletes
// every live one at the end: a run reads, changes and deletes nothing but its own.
import { createHash } from 'node:crypto';
import type {
  AgentServerClient,
  Assistant,
  AssistantCreate,
  Cron,
  CronCreate,
  StoreItemPut,
  Superstep,
  Thread,
  ThreadCreate,
  ThreadState,
} from '@agentplane/agent-server';
import type { Verify } from '../verify.js';

/** The metadata key that marks a run's threads; its value is the run's id. */
export const RUN_TAG = 'agentplane_conformance_run';

/** An answer as a check reads it. */
export interface Answer<T> {
  status: number;
  data: T | undefined;
  error: unknown;
  headers: Headers;
}

export async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Answer<T>> {
  const { data, error, response } = await call;
  return { status: response.status, data, error, headers: response.headers };
}

const human = { type: 'human' as const, content: 'Weather in Paris?', id: 'h-1' };

/**
 * A conversation with a tool call as an agent writes it: the input (written to `__start__`), the
 * `__start__` superstep applying it, the agent's tool call, the tool's answer, and the agent's
 * answer together with a RemoveMessage of the question (decision A5).
 */
export const CONVERSATION: Superstep[] = [
  { updates: [{ as_node: '__input__', values: { messages: [human], topic: 'weather' } }] },
  { updates: [{ as_node: '__start__', values: { messages: [human], topic: 'weather' } }] },
  {
    updates: [
      {
        as_node: 'agent',
        values: {
          messages: [{ type: 'ai', id: 'a-1', content: '', tool_calls: [{ id: 'call-1', name: 'get_weather', args: { city: 'Paris' } }] }],
        },
      },
    ],
  },
  {
    updates: [
      {
        as_node: 'tools',
        values: {
          messages: [{ type: 'tool', id: 't-1', content: 'sunny', tool_call_id: 'call-1', name: 'get_weather', status: 'success' }],
        },
      },
    ],
  },
  {
    updates: [
      {
        as_node: 'agent',
        values: {
          messages: [
            { type: 'ai', id: 'a-2', content: 'It is sunny.' },
            { type: 'remove', id: 'h-1' },
          ],
        },
      },
    ],
  },
];

/** The conversation's final values, as [type, id, content] per message. */
export const CONVERSATION_MESSAGES = [
  ['ai', 'a-1', ''],
  ['tool', 't-1', 'sunny'],
  ['ai', 'a-2', 'It is sunny.'],
];

/** Messages as [type, id, content]: what a check compares (servers may add default fields). */
export function messageSummary(values: unknown): unknown {
  const messages = (values as { messages?: unknown } | null | undefined)?.messages;
  if (!Array.isArray(messages)) return messages;
  return messages.map((m: { type?: unknown; id?: unknown; content?: unknown }) => [m.type, m.id, m.content]);
}

/** UUIDs no server has. */
export const UNKNOWN_THREAD = '3b7e9f1a-2c4d-4e6f-8a0b-1c2d3e4f5a6b';
export const UNKNOWN_CHECKPOINT = '1f0a0000-0000-6000-8000-000000000000';

/** The namespace of the UUID v5 a LangGraph server derives a graph's default assistant ID from. */
export const DEFAULT_ASSISTANT_NAMESPACE = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

/** The ID of a graph's default assistant: the UUID v5 of the graph ID (RFC 9562 §5.5), as LangGraph derives it. */
export function defaultAssistantId(graphId: string): string {
  const digest = createHash('sha1')
    .update(Buffer.from(DEFAULT_ASSISTANT_NAMESPACE.replaceAll('-', ''), 'hex'))
    .update(graphId)
    .digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export class AgentServerSession {
  /** Threads this run created and has not deleted. */
  readonly live = new Set<string>();
  /** Assistants this run created and has not deleted. */
  readonly liveAssistants = new Set<string>();
  /** Crons this run created and has not deleted (always disabled, or due in years: none runs during the run). */
  readonly liveCrons = new Set<string>();
  /** Store items this run put and has not deleted, by their namespace and key (as JSON). */
  readonly liveItems = new Set<string>();
  created = 0;
  /** Threads and assistants of the run its checks deleted (delete, prune). */
  removed = 0;
  /** The graph the run's assistants are of, once known (see assistantGraph). */
  private graphOfAssistants: string | undefined;

  /** A graph the server is known to serve: the run's, once known. */
  get knownGraph(): string | undefined {
    return this.graphOfAssistants;
  }

  constructor(
    readonly client: AgentServerClient,
    readonly runId: string,
    /** The graph of the run: metadata.graph_id of its threads (servers that run graphs need it to write state), and of its assistants. */
    readonly graphId: string | undefined,
    /** What the run may execute: the run checks' graphs (see AgentServerOptions in run.ts). */
    readonly runs: { allowRuns: boolean; scriptedGraphId: string | undefined } = { allowRuns: false, scriptedGraphId: undefined },
    /** Where a WebSocket reaches the server: its URL and key; none when the run reaches it through an injected fetch. */
    readonly socket?: { url: string; apiKey?: string },
  ) {}

  /** Whether the server is known to serve this graph: the run's, or the conformance script's. */
  servesGraph(graphId: string): boolean {
    return graphId === this.graphOfAssistants || graphId === this.graphId || graphId === this.runs.scriptedGraphId;
  }

  /** The metadata every thread of the run carries. */
  get tag(): Record<string, unknown> {
    return { [RUN_TAG]: this.runId };
  }

  /** Creates a thread of this run (its metadata tagged); a failure stops the check. */
  async create(verify: Verify, body: ThreadCreate = {}, withGraph = true): Promise<Thread> {
    const metadata = { ...this.tag, ...(withGraph && this.graphId ? { graph_id: this.graphId } : {}), ...body.metadata };
    const created = await answer(this.client.POST('/threads', { body: { ...body, metadata } }));
    if (created.data) this.track(created.data.thread_id);
    if (created.status !== 200 || !created.data) verify.stop(`createThread answered ${created.status}: ${short(created.error)}`);
    return created.data;
  }

  /** A thread of this run created with the conversation. */
  conversation(verify: Verify, metadata: Record<string, unknown> = {}): Promise<Thread> {
    return this.create(verify, { metadata, supersteps: CONVERSATION });
  }

  /** A thread of the run a check deleted. */
  forget(threadId: string): void {
    if (this.live.delete(threadId)) this.removed++;
  }

  track(threadId: string): void {
    if (!this.live.has(threadId)) this.created++;
    this.live.add(threadId);
  }

  async history(verify: Verify, threadId: string, body: Record<string, unknown> = { limit: 100 }): Promise<ThreadState[]> {
    const history = await answer(
      this.client.POST('/threads/{thread_id}/history', { params: { path: { thread_id: threadId } }, body: body as never }),
    );
    if (history.status !== 200 || !history.data) verify.stop(`getThreadHistory answered ${history.status}: ${short(history.error)}`);
    return history.data;
  }

  async state(verify: Verify, threadId: string): Promise<ThreadState> {
    const state = await answer(this.client.GET('/threads/{thread_id}/state', { params: { path: { thread_id: threadId } } }));
    if (state.status !== 200 || !state.data) verify.stop(`getThreadState answered ${state.status}: ${short(state.error)}`);
    return state.data;
  }

  /** Search among this run's threads only (the tag is always part of the metadata filter). */
  search(body: Record<string, unknown>) {
    const metadata = { ...this.tag, ...(body.metadata as Record<string, unknown> | undefined) };
    return answer(this.client.POST('/threads/search', { body: { ...body, metadata } as never }));
  }

  count(body: Record<string, unknown>) {
    const metadata = { ...this.tag, ...(body.metadata as Record<string, unknown> | undefined) };
    return answer(this.client.POST('/threads/count', { body: { ...body, metadata } as never }));
  }

  /**
   * The graph the run's assistants are of: `--graph-id`, or else the graph of the first default
   * assistant the server lists (a server makes one per graph). A server with neither stops the check.
   */
  async assistantGraph(verify: Verify): Promise<string> {
    if (!this.graphOfAssistants && this.graphId) this.graphOfAssistants = this.graphId;
    if (!this.graphOfAssistants) {
      const found = await answer(this.client.POST('/assistants/search', { body: { metadata: { created_by: 'system' }, limit: 1 } }));
      this.graphOfAssistants = found.data?.[0]?.graph_id;
      if (!this.graphOfAssistants)
        verify.stop(`no graph to make assistants of: searchAssistants found no default assistant (${found.status}); pass --graph-id`);
    }
    return this.graphOfAssistants;
  }

  /** Creates an assistant of this run (its metadata tagged), of the run's graph unless `body` names one; a failure stops the check. */
  async createAssistant(verify: Verify, body: Partial<AssistantCreate> = {}): Promise<Assistant> {
    const graphId = body.graph_id ?? (await this.assistantGraph(verify));
    const created = await answer(
      this.client.POST('/assistants', { body: { ...body, graph_id: graphId, metadata: { ...this.tag, ...body.metadata } } }),
    );
    if (created.data) this.trackAssistant(created.data.assistant_id);
    if (created.status !== 200 || !created.data) verify.stop(`createAssistant answered ${created.status}: ${short(created.error)}`);
    return created.data;
  }

  trackAssistant(assistantId: string): void {
    if (!this.liveAssistants.has(assistantId)) this.created++;
    this.liveAssistants.add(assistantId);
  }

  /** An assistant of the run a check deleted. */
  forgetAssistant(assistantId: string): void {
    if (this.liveAssistants.delete(assistantId)) this.removed++;
  }

  /** The namespace of this run's store items: under its tag and ID, so that nothing else is read or changed. */
  namespace(...labels: string[]): string[] {
    return [RUN_TAG, this.runId, ...labels];
  }

  /** Puts a store item of this run (`namespace` is under the run's, see `namespace`); a failure stops the check. */
  async putItem(
    verify: Verify,
    labels: string[],
    key: string,
    value: Record<string, unknown>,
    extra: Partial<StoreItemPut> = {},
  ): Promise<void> {
    const namespace = this.namespace(...labels);
    const put = await answer(this.client.PUT('/store/items', { body: { namespace, key, value, ...extra } }));
    if (put.status !== 204) verify.stop(`could not put a store item (${put.status}: ${short(put.error)})`);
    if (!this.liveItems.has(JSON.stringify([namespace, key]))) this.created++;
    this.liveItems.add(JSON.stringify([namespace, key]));
  }

  /** A store item of the run a check deleted. */
  forgetItem(namespace: string[], key: string): void {
    if (this.liveItems.delete(JSON.stringify([namespace, key]))) this.removed++;
  }

  /** Creates a cron of this run (tagged, disabled unless `body` says otherwise), of a thread when `threadId` is given; a failure stops the check. */
  async createCron(verify: Verify, body: Partial<CronCreate>, threadId?: string): Promise<Cron> {
    const full: CronCreate = {
      assistant_id: await this.assistantGraph(verify),
      schedule: '0 0 29 2 *',
      enabled: false,
      ...body,
      metadata: { ...this.tag, ...body.metadata },
    };
    const created = await answer(
      threadId === undefined
        ? this.client.POST('/runs/crons', { body: full })
        : this.client.POST('/threads/{thread_id}/runs/crons', { params: { path: { thread_id: threadId } }, body: full }),
    );
    if (created.status !== 200 || !created.data) verify.stop(`could not create a cron (${created.status}: ${short(created.error)})`);
    this.liveCrons.add(created.data.cron_id);
    this.created++;
    return created.data;
  }

  /** A cron of the run a check deleted, or that went with its thread. */
  forgetCron(cronId: string): void {
    if (this.liveCrons.delete(cronId)) this.removed++;
  }

  /** Search among this run's assistants only (the tag is always part of the metadata filter). */
  searchAssistants(body: Record<string, unknown>) {
    const metadata = { ...this.tag, ...(body.metadata as Record<string, unknown> | undefined) };
    return answer(this.client.POST('/assistants/search', { body: { ...body, metadata } as never }));
  }

  countAssistants(body: Record<string, unknown>) {
    const metadata = { ...this.tag, ...(body.metadata as Record<string, unknown> | undefined) };
    return answer(this.client.POST('/assistants/count', { body: { ...body, metadata } as never }));
  }
}

/**
 * Each call must answer 404 with a `{detail: "<sentence>"}` body. The detail's type is the
 * expectation marked `differs`: where the LangGraph JS server answers plain text, that is the
 * declared `error-detail-body` difference, and a status other than 404 stays a failure of its own.
 */
export async function expectNotFound(
  verify: Verify,
  calls: readonly (readonly [operation: string, call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>])[],
): Promise<void> {
  for (const [operation, call] of calls) {
    const got = await answer<unknown>(call());
    verify.equal(got.status, 404, `${operation}: status`);
    if (got.status === 404)
      verify.equal(typeof (got.error as { detail?: unknown } | undefined)?.detail, 'string', `${operation}: type of detail`, {
        differs: true,
      });
  }
}

export function short(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? '(no body)' : text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** The checkpoint id of a state, read from its `checkpoint` (which every server answers). */
export const checkpointIdOf = (state: ThreadState | undefined) => state?.checkpoint?.checkpoint_id ?? undefined;
export const parentIdOf = (state: ThreadState | undefined) => state?.parent_checkpoint?.checkpoint_id ?? undefined;
