// The commands of the thread-centric protocol (ProtocolMethod in the spec), the same over HTTP
// (`POST .../commands`) and over a WebSocket (protocol-socket.ts adds the subscriptions): each
// command is checked against its method's params schema, done, and answered with its result or
// with the protocol's error code, never an HTTP error, since a socket has none (decision A26).
// Runs are made by the run engine exactly as the runs API makes them, so a run the protocol
// starts is a run like any other (listed, joined, cancelled through the API).
import type {
  ProtocolAgentTree,
  ProtocolAnswer,
  ProtocolCommand,
  ProtocolErrorCode,
  ProtocolGetTreeParams,
  ProtocolInputRespondParams,
  ProtocolListCheckpointsParams,
  ProtocolRunStartParams,
  ProtocolStateForkParams,
  ProtocolStateGetParams,
  RunCreate,
} from '@agentplane/agent-server';
import type { ApiContract } from '../../contract/api-contract.js';
import { HttpError } from '../../http/http-error.js';
import { canonicalUuid } from '../../shared/ids.js';
import type { RunEngine } from '../runs/run-engine.js';
import { configurableHeaders } from '../runs/run-handlers.js';
import type { RunRow, RunStore } from '../runs/run-store.js';
import type { SubgraphCheckpoints } from '../threads/subgraph-checkpoints.js';
import type { CheckpointRow, ThreadRow, ThreadStore } from '../threads/thread-store.js';
import type { ThreadEvents } from './thread-events.js';

type Values = Record<string, unknown>;
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** A command refused: its error code and message. */
export class CommandError extends Error {
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ProtocolParts {
  /**
   * How long a run a command starts waits before it executes (decision E28): the LangGraph SDK
   * opens its streams once the command is answered, and a run that ended before they arrive is
   * never shown by its ThreadStream.
   */
  runDelayMs: number;
  threads: ThreadStore;
  subgraphCheckpoints: SubgraphCheckpoints;
  runs: RunStore;
  engine: RunEngine;
  events: ThreadEvents;
  contract: ApiContract;
}

/** The params schema of each method this module serves (the spec's components). */
const PARAMS = {
  'run.start': 'ProtocolRunStartParams',
  'input.respond': 'ProtocolInputRespondParams',
  'agent.getTree': 'ProtocolGetTreeParams',
  'state.get': 'ProtocolStateGetParams',
  'state.listCheckpoints': 'ProtocolListCheckpointsParams',
  'state.fork': 'ProtocolStateForkParams',
} as const;
type ServedMethod = keyof typeof PARAMS;

/** Methods the protocol has that this server refuses, and why. */
const NOT_SUPPORTED: Record<string, string> = {
  'subscription.subscribe':
    'Subscriptions are made on the thread’s WebSocket; over HTTP, POST /threads/{thread_id}/stream/events with the filter.',
  'subscription.unsubscribe': 'Subscriptions are made on the thread’s WebSocket; over HTTP, close the event stream.',
  'subscription.reconnect': 'subscription.reconnect is not supported: subscribe again with since, the last seq received.',
  'input.inject': 'input.inject is not supported: a running graph cannot take input here; start a run (run.start) with it.',
};

export class ProtocolCommands {
  constructor(private readonly parts: ProtocolParts) {}

  /** Answers one command sent to a thread. */
  answer(threadId: string, command: ProtocolCommand, headers: Headers): ProtocolAnswer {
    try {
      const result = this.run(threadId, command, headers);
      return { type: 'success', id: command.id, result, meta: this.meta(threadId) };
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      return this.error(threadId, command.id, error.code, error.message);
    }
  }

  /** An error answer (`id` null when the message had none). */
  error(threadId: string, id: number | null, code: ProtocolErrorCode, message: string): ProtocolAnswer {
    return { type: 'error', id, error: code, message, meta: this.meta(threadId) };
  }

  /** Checks a command's params against its method's schema: the params, or an `invalid_argument`. */
  params<Params>(method: string, schema: string, params: unknown): Params {
    const issues = this.parts.contract.checkSchema(schema, params ?? {}, 'body', ['params']);
    if (issues)
      throw new CommandError(
        'invalid_argument',
        `${method} params are invalid: ${issues.map((issue) => `${issue.loc.slice(1).join('.')}: ${issue.msg}`).join('; ')}`,
      );
    return (params ?? {}) as Params;
  }

  private meta(threadId: string) {
    return { thread_id: threadId, applied_through_seq: this.parts.events.store.lastSeq(threadId) };
  }

  private run(threadId: string, command: ProtocolCommand, headers: Headers): Values {
    const { method } = command;
    if (Object.hasOwn(NOT_SUPPORTED, method)) throw new CommandError('not_supported', NOT_SUPPORTED[method]!);
    if (!Object.hasOwn(PARAMS, method)) throw new CommandError('unknown_command', `Unknown protocol command: ${method}`);
    const served = method as ServedMethod;
    const params = this.params<Values>(method, PARAMS[served], command.params);
    switch (served) {
      case 'run.start':
        return this.runStart(threadId, params as ProtocolRunStartParams, headers);
      case 'input.respond':
        return this.inputRespond(threadId, params as ProtocolInputRespondParams, headers);
      case 'agent.getTree':
        return { tree: this.tree(threadId, params as ProtocolGetTreeParams) };
      case 'state.get':
        return this.stateGet(threadId, params as ProtocolStateGetParams);
      case 'state.listCheckpoints':
        return this.listCheckpoints(threadId, params as ProtocolListCheckpointsParams);
      case 'state.fork':
        return this.fork(threadId, params as ProtocolStateForkParams, headers);
    }
  }

  private runStart(threadId: string, params: ProtocolRunStartParams, headers: Headers): Values {
    const { threads, engine } = this.parts;
    const thread = threads.get(threadId);
    // The protocol's state machine: input given to a thread that waits at an interrupt answers it.
    const resumes =
      thread !== undefined && params.input != null && !engine.isBusy(threadId) && pendingInterrupts(threads, threadId).length > 0;
    const checkpointId = params.config?.configurable?.checkpoint_id;
    const body = withoutUndefined({
      assistant_id: params.assistant_id,
      ...(resumes ? { command: { resume: params.input } } : { input: params.input ?? null }),
      config: params.config,
      metadata: params.metadata,
      checkpoint_id: checkpointId,
      langsmith_tracer: params.langsmith_tracer,
      multitask_strategy: params.multitask_strategy ?? params.multitaskStrategy ?? 'enqueue',
      if_not_exists: 'create',
    });
    const run = this.createRun(threadId, 'run.start', body, headers);
    return { run_id: run.run_id };
  }

  private inputRespond(threadId: string, params: ProtocolInputRespondParams, headers: Headers): Values {
    const thread = this.requireThread(threadId);
    const answers = 'responses' in params ? params.responses : [{ interrupt_id: params.interrupt_id, response: params.response }];
    const ids = answers.map((answer) => answer.interrupt_id);
    const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
    if (repeated !== undefined) throw new CommandError('invalid_argument', `input.respond answers interrupt ${repeated} twice.`);
    const waiting = this.parts.engine.isBusy(threadId) ? [] : pendingInterrupts(this.parts.threads, threadId);
    if (waiting.length === 0)
      throw new CommandError(
        'invalid_argument',
        'input.respond can only be used while the thread waits at an interrupt; it waits at none.',
      );
    const unknown = ids.filter((id) => !waiting.includes(id));
    if (unknown.length > 0)
      throw new CommandError(
        'no_such_interrupt',
        `The thread does not wait at interrupt ${unknown.join(', ')}; it waits at: ${waiting.join(', ')}.`,
      );
    const body = withoutUndefined({
      assistant_id: assistantOf(thread),
      command: withoutUndefined({
        resume: Object.fromEntries(answers.map((answer) => [answer.interrupt_id, answer.response])),
        update: params.update,
        goto: params.goto,
      }),
      config: params.config,
      metadata: params.metadata,
    });
    const run = this.createRun(threadId, 'input.respond', body, headers);
    return { run_id: run.run_id };
  }

  private tree(threadId: string, params: ProtocolGetTreeParams): ProtocolAgentTree {
    const { runs, events } = this.parts;
    this.requireThread(threadId);
    const runId =
      params.run_id === undefined
        ? (runs.list(threadId, { limit: 1, offset: 0 })[0]?.run_id ?? events.store.lastRun(threadId))
        : canonicalUuid(params.run_id);
    const run = runId === undefined ? undefined : runs.get(runId);
    if (runId === undefined || (run && run.thread_id !== threadId))
      throw new CommandError(
        'no_such_run',
        params.run_id === undefined ? `Thread ${threadId} has no run yet.` : `Thread ${threadId} has no run ${runId}.`,
      );
    const told = events.store.ofRun(threadId, runId, 'lifecycle');
    if (told.length === 0 && !run) throw new CommandError('no_such_run', `Thread ${threadId} has no run ${runId}.`);
    return treeOf(
      told.map((event) => JSON.parse(event.json)),
      run,
    );
  }

  private stateGet(threadId: string, params: ProtocolStateGetParams): Values {
    this.requireThread(threadId);
    const namespace = params.namespace ?? [];
    const latest: Pick<CheckpointRow, 'checkpoint_id' | 'values'> | undefined =
      namespace.length === 0
        ? this.parts.threads.latestCheckpoint(threadId)
        : this.parts.subgraphCheckpoints.latest(threadId, namespace.join('|'));
    if (!latest && namespace.length > 0) throw noSuchNamespace(namespace);
    const values = latest?.values ?? {};
    const keys = params.keys;
    return {
      values: keys ? Object.fromEntries(Object.entries(values).filter(([key]) => keys.includes(key))) : values,
      ...(latest ? { checkpoint: { id: latest.checkpoint_id, ns: namespace.join('|') } } : {}),
    };
  }

  private listCheckpoints(threadId: string, params: ProtocolListCheckpointsParams): Values {
    this.requireThread(threadId);
    const namespace = params.namespace ?? [];
    const limit = params.limit ?? 10;
    const before = params.before === undefined ? undefined : canonicalUuid(params.before);
    const ns = namespace.join('|');
    const { threads, subgraphCheckpoints } = this.parts;
    if (namespace.length > 0 && !subgraphCheckpoints.latest(threadId, ns)) throw noSuchNamespace(namespace);
    const rows =
      namespace.length === 0
        ? threads.history(threadId, { limit, ...(before ? { before } : {}) })
        : subgraphCheckpoints.history(threadId, ns, limit, before);
    return {
      checkpoints: rows.map((row) => ({
        id: row.checkpoint_id,
        ...(row.parent_checkpoint_id ? { parent_id: row.parent_checkpoint_id } : {}),
        timestamp: row.created_at,
        step: typeof row.metadata.step === 'number' ? row.metadata.step : -1,
        ...(typeof row.metadata.source === 'string' ? { source: row.metadata.source } : {}),
        next: row.next,
        metadata: row.metadata,
      })),
    };
  }

  private fork(threadId: string, params: ProtocolStateForkParams, headers: Headers): Values {
    const thread = this.requireThread(threadId);
    const checkpointId = canonicalUuid(params.checkpoint_id);
    if (!this.parts.threads.checkpoint(threadId, checkpointId))
      throw new CommandError('no_such_checkpoint', `Thread ${threadId} has no checkpoint ${checkpointId}.`);
    const body = withoutUndefined({
      assistant_id: params.assistant_id ?? assistantOf(thread),
      input: params.input ?? null,
      config: params.config,
      checkpoint_id: checkpointId,
      multitask_strategy: 'enqueue',
    });
    const run = this.createRun(threadId, 'state.fork', body, headers);
    return { run_id: run.run_id, thread_id: threadId };
  }

  /**
   * A run of the engine, from a body checked as the runs API checks it; what the engine refuses
   * (an unknown assistant or checkpoint, a busy thread with `reject`) becomes the protocol's error.
   * The thread joins the protocol with its run, so the run's events are told.
   */
  private createRun(threadId: string, method: string, body: Values, headers: Headers): RunRow {
    if (this.parts.runDelayMs > 0) body.after_seconds = this.parts.runDelayMs / 1000;
    const issues = this.parts.contract.checkSchema('RunCreate', body, 'body', ['params']);
    if (issues)
      throw new CommandError(
        'invalid_argument',
        `${method} cannot run this: ${issues.map((issue) => `${issue.loc.slice(1).join('.')}: ${issue.msg}`).join('; ')}`,
      );
    try {
      return this.parts.threads.transaction(() => {
        const alone = !this.parts.engine.isBusy(threadId);
        const run = this.parts.engine.create(threadId, body as RunCreate, configurableHeaders(headers));
        this.parts.events.store.join(threadId);
        // A run that is next to execute begins at once for its clients; one queued behind another
        // is told when its turn comes, so that runs never interleave on the tape.
        if (alone) this.parts.events.announce(threadId, run.run_id, graphOf(run));
        return run;
      });
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const detail = String(error.detail);
      throw new CommandError(detail.startsWith('Checkpoint') ? 'no_such_checkpoint' : 'invalid_argument', detail);
    }
  }

  private requireThread(threadId: string): ThreadRow {
    const thread = this.parts.threads.get(threadId);
    if (!thread) throw new CommandError('no_such_run', `Thread ${threadId} does not exist; run.start makes it.`);
    return thread;
  }
}

/** The graph a run runs (its configurable's `graph_id`). */
export const graphOf = (run: RunRow): string =>
  String(((run.kwargs.config as Values | undefined)?.configurable as Values | undefined)?.graph_id ?? '');

/** The IDs of the interrupts a thread waits at (its latest checkpoint's tasks', those of its subgraphs included). */
export function pendingInterrupts(threads: ThreadStore, threadId: string): string[] {
  const tasks = threads.latestCheckpoint(threadId)?.tasks ?? [];
  return tasks.flatMap((task) => (task.interrupts ?? []).flatMap((interrupt) => (interrupt.id === undefined ? [] : [interrupt.id])));
}

/** The assistant a thread's runs run: the one its last run named (runs record it on the thread). */
function assistantOf(thread: ThreadRow): string {
  const { assistant_id, graph_id } = thread.metadata as { assistant_id?: unknown; graph_id?: unknown };
  if (typeof assistant_id === 'string') return assistant_id;
  if (typeof graph_id === 'string') return graph_id;
  throw new CommandError(
    'invalid_argument',
    `Thread ${thread.thread_id} names no assistant (metadata.assistant_id); start a run with run.start.`,
  );
}

const noSuchNamespace = (namespace: string[]) =>
  new CommandError('no_such_namespace', `The thread has no checkpoint in namespace ${JSON.stringify(namespace)}.`);

/**
 * A run's tree from its lifecycle events: the root, and each namespace below it under its nearest
 * ancestor that has one, in the order they started, with its last status. A run told before its
 * thread joined the protocol has the root only, from its row.
 */
function treeOf(
  told: { params: { namespace: string[]; data: { event: ProtocolAgentTree['status']; graph_name?: string } } }[],
  run: RunRow | undefined,
): ProtocolAgentTree {
  const graphName = run ? graphOf(run) : '';
  const root: ProtocolAgentTree = { namespace: [], status: run ? statusOfRun(run) : 'running', graph_name: graphName };
  const nodes = new Map<string, ProtocolAgentTree>([['', root]]);
  for (const { params } of told) {
    const key = params.namespace.join('|');
    let node = nodes.get(key);
    if (!node) {
      node = { namespace: params.namespace, status: params.data.event, graph_name: params.data.graph_name ?? '' };
      nodes.set(key, node);
      let parent: ProtocolAgentTree | undefined;
      for (let depth = params.namespace.length - 1; !parent; depth--) parent = nodes.get(params.namespace.slice(0, depth).join('|'));
      parent.children = [...(parent.children ?? []), node];
    }
    node.status = params.data.event;
    if (params.data.graph_name) node.graph_name = params.data.graph_name;
  }
  return root;
}

function statusOfRun(run: RunRow): ProtocolAgentTree['status'] {
  if (run.status === 'pending' || run.status === 'running') return 'running';
  if (run.status === 'error' || run.status === 'timeout') return 'failed';
  if (run.status === 'interrupted' || (run.outcome && '__interrupt__' in run.outcome)) return 'interrupted';
  return 'completed';
}

function withoutUndefined(object: Values): Values {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}
