// The run engine: runs are created here, wait their turn on their thread, execute their scripted
// graph (graph-runner.ts), and end here. It owns every status change of runs and of the threads
// they run on:
//
// - A run is created `pending` in the creating request's transaction, and its thread becomes
//   `busy`. Runs of one thread execute one at a time, in creation order (`created_at`, which
//   counts `after_seconds`); a run waiting for its `after_seconds` holds the runs behind it.
// - While a run executes, each step's checkpoint is committed before the next step begins, and its
//   events go to the run's log (run-events.ts), the only thing waiters and streams read.
// - It ends `success` (its graph finished, or stopped at an interrupt or breakpoint), `error` (a
//   node raised: its error is the waiters' answer, never a 5xx), or `interrupted` (cancelled);
//   a run cancelled with `rollback` is deleted with its checkpoints. Its thread becomes `error`,
//   `interrupted` (its latest checkpoint still has nodes to run), `idle`, or stays `busy` when
//   more runs wait.
// - Runs are as durable as threads: a run in flight when the process died starts again when the
//   emulator starts on the same file, from its thread's latest checkpoint (`recover`).
import type { Run, RunCreate, RunWaitResult, ThreadStatus } from '@agentplane/agent-server';
import { HttpError } from '../../http/http-error.js';
import { canonicalUuid, newRunId, newThreadId } from '../../shared/ids.js';
import type { GraphRegistry } from '../graphs/scripted-graph.js';
import type { ItemStore } from '../store-items/item-store.js';
import type { SubgraphCheckpoints } from '../threads/subgraph-checkpoints.js';
import type { ThreadRow, ThreadStore } from '../threads/thread-store.js';
import type { RunOutcome } from './graph-runner.js';
import { runScriptedGraph } from './graph-runner.js';
import type { RunAnswer } from './run-events.js';
import { RunEvents } from './run-events.js';
import type { RunEnding, RunObserver } from './run-observer.js';
import type { RunRow, RunStore } from './run-store.js';
import { sendWebhook, webhookPayload } from './webhook.js';

type Values = Record<string, unknown>;

/** What a run needs of the assistant it names: the assistant's current version. */
export interface ResolvedAssistant {
  assistant_id: string;
  graph_id: string;
  config: Values;
  context: unknown;
  metadata: Values;
}

/** Finds the assistant a run names by its ID or by a graph ID (that graph's default assistant). */
export interface AssistantResolver {
  resolve(assistantIdOrGraphId: string): ResolvedAssistant | undefined;
}

export interface RunEngineParts {
  threads: ThreadStore;
  subgraphCheckpoints: SubgraphCheckpoints;
  runs: RunStore;
  graphs: GraphRegistry;
  assistants: AssistantResolver;
  /** The clock of timestamps and `after_seconds`. */
  now: () => number;
  /** Where failures of the emulator's own (an internal error while a run executes) are reported. */
  onError: (message: string) => void;
  /** Where a failure of the user's setup is told (a webhook receiver that is down). */
  onNotice: (message: string) => void;
  /** How long the events of an ended resumable run stay readable (`Last-Event-ID`). */
  keepResumableEventsMs?: number;
  /** Every pause of a scripted graph lasts this many times its scripted length (default 1). */
  timeScale?: number;
  /** The store a scripted graph's steps read and write. */
  items: ItemStore;
  /** Who is told everything a run does as it executes, if anyone (the protocol's events of its thread). */
  observe?: (run: RunRow) => RunObserver | undefined;
}

/** The events of an ended resumable run stay readable this long (decision E21). */
export const KEEP_RESUMABLE_EVENTS_MS = 15 * 60_000;

type CancelAction = 'interrupt' | 'rollback';

const MAX_TIMER_MS = 2 ** 31 - 1;

/** A run executing now: how to stop it, and who is told how it ends. */
interface Execution {
  runId: string;
  controller: AbortController;
  observer?: RunObserver | undefined;
}

export class RunEngine {
  readonly events: RunEvents;
  /** The run each thread is executing, by thread ID. */
  private readonly executing = new Map<string, Execution>();
  /** Threads with a wake-up set for the `after_seconds` of their next run. */
  private readonly wakeUps = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly parts: RunEngineParts) {
    this.events = new RunEvents(parts.keepResumableEventsMs ?? KEEP_RESUMABLE_EVENTS_MS);
  }

  private nowIso(): string {
    return new Date(this.parts.now()).toISOString();
  }

  /**
   * Creates a run (call inside the request's handler: its writes join the request's transaction)
   * and answers it as stored, `pending`. On a thread (`threadId`) it follows the thread's runs by
   * `multitask_strategy`; stateless (`null`) it gets a thread of its own. Throws the 404 and 409
   * the spec declares.
   */
  create(threadId: string | null, body: RunCreate, requestHeaders: Record<string, string> = {}): RunRow {
    const { threads, runs } = this.parts;
    // The request's own config, with the request headers LangGraph passes to graphs.
    const requestConfig: Values = { ...body.config, configurable: { ...body.config?.configurable, ...requestHeaders } };
    const assistant = this.parts.assistants.resolve(body.assistant_id);
    if (!assistant)
      throw new HttpError(
        404,
        `No assistant found for "${body.assistant_id}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`,
      );
    // An assistant of a graph the emulator no longer serves (a restart with fewer graphs) runs nothing.
    if (!this.parts.graphs.get(assistant.graph_id)) throw new HttpError(404, `Graph "${assistant.graph_id}" not found.`);
    const run = runs.transaction(() => {
      const now = this.nowIso();
      const stateless = threadId === null;
      const id = stateless ? newThreadId() : canonicalUuid(threadId);
      let thread: ThreadRow | undefined = stateless ? undefined : threads.get(id);
      if (!thread && !stateless && body.if_not_exists !== 'create') throw new HttpError(404, `Thread with ID ${id} not found.`);
      const runMetadata = body.metadata ?? {};
      // A thread the run creates lends the run none of its metadata (LangGraph's servers merge the thread's before it exists).
      const createsThread = !thread;
      if (!thread) {
        const created: ThreadRow & { values: Values } = {
          thread_id: id,
          created_at: now,
          updated_at: now,
          state_updated_at: now,
          status: 'busy',
          metadata: { graph_id: assistant.graph_id, assistant_id: assistant.assistant_id, ...runMetadata },
          config: mergeConfig(assistant.config, {}, requestConfig),
          values: {},
        };
        threads.insert(created, []);
        thread = created;
      }
      const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
      if (checkpointId !== undefined && !threads.hasCheckpoint(id, canonicalUuid(checkpointId)))
        throw new HttpError(404, `Checkpoint ${canonicalUuid(checkpointId)} not found for thread ${id}.`);

      const strategy = body.multitask_strategy ?? 'reject';
      // The runs in flight are read whole only when they are to be cancelled, or told a run waits
      // behind them; a thread this run creates has none.
      const inFlight = strategy === 'reject' || createsThread ? [] : runs.inFlightOf(id);
      if (strategy === 'reject' && !createsThread && runs.hasInFlight(id))
        throw new HttpError(409, 'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.');

      // The thread records which graph and assistant fill it, as LangGraph's servers do.
      if (thread.status !== 'busy') {
        const metadata = { ...thread.metadata, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id };
        threads.update(id, thread.metadata, metadata, now, null);
        threads.setConfig(id, mergeConfig(assistant.config, thread.config, requestConfig));
        threads.setStatus(id, 'busy', now);
        thread = { ...thread, metadata };
      }
      const runId = newRunId();
      const metadata = { ...assistant.metadata, ...(createsThread ? {} : thread.metadata), ...runMetadata };
      // The run's config is its assistant's and its own; the thread's enters through `configurable` only.
      const configurable: Values = {
        ...(assistant.config.configurable as Values | undefined),
        ...(thread.config.configurable as Values | undefined),
        ...(requestConfig.configurable as Values),
        ...(body.checkpoint ?? {}),
        ...(body.checkpoint_id === undefined ? {} : { checkpoint_id: body.checkpoint_id }),
        ...(body.langsmith_tracer
          ? { langsmith_project: body.langsmith_tracer.project_name, langsmith_example_id: body.langsmith_tracer.example_id }
          : {}),
        run_id: runId,
        thread_id: id,
        graph_id: assistant.graph_id,
        assistant_id: assistant.assistant_id,
      };
      const streamMode = body.stream_mode === undefined ? ['values'] : [body.stream_mode].flat();
      const created = new Date(this.parts.now() + (body.after_seconds ?? 0) * 1000).toISOString();
      const row: RunRow = {
        run_id: runId,
        thread_id: id,
        assistant_id: assistant.assistant_id,
        created_at: created,
        updated_at: now,
        status: 'pending',
        metadata,
        kwargs: withoutUndefined({
          input: body.input,
          command: body.command,
          config: { ...assistant.config, ...requestConfig, configurable, metadata },
          context: mergeContext(assistant.context, body.context),
          stream_mode: streamMode,
          interrupt_before: body.interrupt_before,
          interrupt_after: body.interrupt_after,
          webhook: body.webhook,
          feedback_keys: body.feedback_keys?.length ? body.feedback_keys : undefined,
          temporary: stateless && (body.on_completion ?? 'delete') === 'delete',
          // The engine's own: a recorded run is told apart by it (left out of the run as the API shows it).
          stateless: stateless || undefined,
          subgraphs: body.stream_subgraphs ?? false,
          resumable: body.stream_resumable ?? false,
          // Only when asked for, as LangGraph's servers keep it in the run's config.
          strict_resume: body.strict_resume === true ? true : undefined,
        }),
        multitask_strategy: strategy,
        attempt: 0,
        outcome: null,
      };
      runs.insert(row);
      // A run queued behind the one in flight: that one is not cancelled by it.
      if (strategy === 'enqueue') for (const other of inFlight) this.events.open(other.run_id).markAwaited();
      if (strategy === 'interrupt' || strategy === 'rollback')
        this.cancelRuns(
          inFlight.map((other) => other.run_id),
          strategy,
        );
      return row;
    });
    // The run starts once the request that made it has been answered (and committed): a stream
    // then sends its first events while the run goes on, not the whole run at once.
    setImmediate(() => this.kick(run.thread_id));
    return run;
  }

  /**
   * Starts a run its creating request waits for, now, in that request's turn (decision E16): a run
   * without pauses then ends in that turn, its writes share the request's COMMIT, and its answer
   * goes out once that COMMIT is done, from memory. (A run made in the background, or streamed,
   * starts once its creation is answered.) Call right after `create`.
   */
  runWaited(run: RunRow): Promise<RunAnswer> {
    const log = this.events.open(run.run_id);
    const answered = new Promise<RunAnswer>((resolve) => log.follow(undefined, resolve));
    this.kick(run.thread_id, run);
    return answered;
  }

  /** The run's answer to waiters once it ends: at once from its row when it has, else when it does. */
  outcome(run: RunRow): Promise<RunAnswer> {
    if (run.outcome) return Promise.resolve(run.outcome);
    if (!this.events.get(run.run_id)) {
      // Not followed yet: ended since it was read, or still to end (its log starts now).
      const stored = this.parts.runs.get(run.run_id);
      if (!stored) return Promise.resolve(this.threadValues(run.thread_id));
      if (stored.outcome) return Promise.resolve(stored.outcome);
    }
    const log = this.events.open(run.run_id);
    return new Promise((resolve) => log.follow(undefined, resolve));
  }

  /**
   * Cancels runs that have not ended (inside a transaction): `interrupt` ends them `interrupted`,
   * keeping what they wrote (and, with `reason`, recording why: `taken:<run ID>` names the run the
   * thread was executing, which took the cancelled run's input); `rollback` deletes them with
   * their checkpoints. Ended runs are left as they are.
   */
  cancelRuns(runIds: string[], action: CancelAction, reason?: 'taken'): void {
    const { runs, threads } = this.parts;
    const touched = new Set<string>();
    const rolledBack = new Set<string>();
    runs.transaction(() => {
      for (const runId of runIds) {
        const run = runs.get(runId);
        if (!run || (run.status !== 'pending' && run.status !== 'running')) continue;
        const execution = this.executing.get(run.thread_id);
        const taker = execution && execution.runId !== runId ? execution.runId : '';
        if (execution?.runId === runId) {
          execution.controller.abort(action);
          this.executing.delete(run.thread_id);
          execution.observer?.runEnded({ status: 'cancelled' });
        }
        const outcome = this.threadValues(run.thread_id);
        if (action === 'rollback') {
          threads.deleteCheckpointsOfRun(run.thread_id, runId);
          this.parts.subgraphCheckpoints.deleteOfRun(run.thread_id, runId);
          runs.delete(runId);
          rolledBack.add(run.thread_id);
        } else runs.finishWithValues(run, 'interrupted', outcome, this.nowIso(), reason && `${reason}:${taker}`);
        this.events.end(runId, action === 'rollback' ? this.threadValues(run.thread_id) : outcome, isResumable(run));
        touched.add(run.thread_id);
      }
      for (const threadId of touched) this.settleThread(threadId, 'cancelled');
      // The items only the rolled-back checkpoints named go with them (decision E29).
      for (const threadId of rolledBack) threads.collectItems(threadId, runs.answersOf(threadId));
    });
    for (const threadId of touched) queueMicrotask(() => this.kick(threadId));
  }

  /**
   * An assistant is being deleted (inside a transaction): its runs in flight end `interrupted`,
   * keeping what they wrote, and then every run of it is deleted, as LangGraph deletes them.
   */
  forgetAssistant(assistantId: string): void {
    const inFlight = this.parts.runs.inFlight().filter((run) => run.assistant_id === assistantId);
    this.cancelRuns(
      inFlight.map((run) => run.run_id),
      'interrupt',
    );
    this.parts.runs.deleteOfAssistant(assistantId);
  }

  /** Deletes an ended run and the checkpoints it wrote (inside a transaction); false when it is in flight. */
  deleteRun(run: RunRow): boolean {
    if (run.status === 'pending' || run.status === 'running') return false;
    const { threads, runs } = this.parts;
    threads.deleteCheckpointsOfRun(run.thread_id, run.run_id);
    this.parts.subgraphCheckpoints.deleteOfRun(run.thread_id, run.run_id);
    runs.delete(run.run_id);
    // The items only its checkpoints and its answer named go with them (decision E29).
    threads.collectItems(run.thread_id, runs.answersOf(run.thread_id));
    this.events.forget(run.run_id);
    return true;
  }

  /** The manifests of the answers of a thread's runs, whose items a prune keeps. */
  answersOf(threadId: string): string[] {
    return this.parts.runs.answersOf(threadId);
  }

  /** The run the thread is executing now, if any. */
  executingRun(threadId: string): string | undefined {
    return this.executing.get(threadId)?.runId;
  }

  /** Whether the thread has a run pending or running. */
  isBusy(threadId: string): boolean {
    return this.parts.runs.hasInFlight(threadId);
  }

  /** Threads are being deleted (with their runs): their executions stop and their waiters get the values they had. */
  forgetThreads(threadIds: readonly string[]): void {
    for (const threadId of threadIds) {
      const execution = this.executing.get(threadId);
      if (!execution) continue;
      execution.controller.abort('interrupt');
      this.executing.delete(threadId);
      this.events.end(execution.runId, this.threadValues(threadId));
    }
    for (const threadId of threadIds) {
      for (const run of this.parts.runs.inFlightOf(threadId)) this.events.end(run.run_id, {});
      this.events.threadGone(threadId);
      clearTimeout(this.wakeUps.get(threadId));
      this.wakeUps.delete(threadId);
    }
  }

  /**
   * After a restart: runs that were running start again (one more attempt) from their thread's
   * latest checkpoint, and every thread with runs pending gets going.
   */
  recover(): void {
    const inFlight = this.parts.runs.inFlight();
    for (const threadId of new Set(inFlight.map((run) => run.thread_id))) queueMicrotask(() => this.kick(threadId));
  }

  /** Stops every timer: the emulator is closing (runs in flight resume after a restart). */
  close(): void {
    this.closed = true;
    for (const timer of this.wakeUps.values()) clearTimeout(timer);
    this.wakeUps.clear();
    for (const execution of this.executing.values()) execution.controller.abort('close');
    this.executing.clear();
    this.events.close();
  }

  /** Starts the thread's next run when none executes and its time has come. */
  private kick(threadId: string, known?: RunRow): void {
    if (this.closed || this.executing.has(threadId)) return;
    // Most kicks find nothing to run (the run that ended kicks its thread, and so does the request
    // that made it): the next run's ID alone says so. The run a request just made, when it is the
    // thread's next, is not read back.
    const nextId = this.parts.runs.nextInFlightId(threadId);
    if (nextId === undefined) return;
    const next = known?.run_id === nextId ? known : this.parts.runs.get(nextId);
    if (!next) return;
    const due = Date.parse(next.created_at) - this.parts.now();
    if (due > 0) {
      clearTimeout(this.wakeUps.get(threadId));
      // A timer holds at most 2^31 − 1 ms (24.8 days); a later run is looked at again then.
      const timer = setTimeout(
        () => {
          this.wakeUps.delete(threadId);
          this.kick(threadId);
        },
        Math.min(due, MAX_TIMER_MS),
      );
      timer.unref();
      this.wakeUps.set(threadId, timer);
      return;
    }
    const controller = new AbortController();
    this.executing.set(threadId, { runId: next.run_id, controller });
    void this.execute(next, controller.signal);
  }

  private async execute(queued: RunRow, signal: AbortSignal): Promise<void> {
    const { runs, threads, graphs } = this.parts;
    runs.transaction(() => runs.start(queued.run_id));
    const run: RunRow = { ...queued, status: 'running', attempt: queued.attempt + 1 };
    const log = this.events.open(run.run_id);
    this.events.runStarted(run.thread_id, run.run_id, log);
    // Every attempt's events begin with which run and attempt they are, as LangGraph's do.
    log.publish('metadata', { run_id: run.run_id, attempt: run.attempt });
    const observer = this.parts.observe?.(run);
    const execution = this.executing.get(run.thread_id);
    if (execution?.runId === run.run_id) execution.observer = observer;
    const startedAt = this.nowIso();
    let outcome: RunOutcome;
    try {
      observer?.runStarted();
      // A streamed run lets its first event leave before it computes the rest: node:http sends a
      // chunk only once the current turn ends, and a script without pauses ends in one turn.
      if (log.followed) await new Promise((resolve) => setImmediate(resolve));
      const graph = graphs.get(graphIdOf(run));
      if (!graph) throw new ScriptError(`Graph "${graphIdOf(run)}" is not configured.`);
      outcome = await runScriptedGraph({
        run,
        graph,
        threads,
        subgraphCheckpoints: this.parts.subgraphCheckpoints,
        runs,
        log,
        signal,
        now: this.parts.now,
        timeScale: this.parts.timeScale ?? 1,
        store: {
          get: (namespace, key) => this.parts.items.get(namespace, key)?.value ?? null,
          put: (namespace, key, value, ttl) => this.parts.items.put({ namespace, key, value, ...(ttl === undefined ? {} : { ttl }) }),
          delete: (namespace, key) => this.parts.items.delete(namespace, key),
        },
        observer,
      });
    } catch (error) {
      if (signal.aborted) return;
      if (!(error instanceof Error)) throw error;
      this.parts.onError(`run ${run.run_id} failed inside the emulator: ${error.stack ?? error.message}`);
      outcome = { status: 'error', error: { error: error.name, message: error.message } };
    }
    // Cancelled (or its thread deleted) while it ran: whoever stopped it has ended it.
    if (signal.aborted || this.executing.get(run.thread_id)?.runId !== run.run_id) return;
    this.executing.delete(run.thread_id);
    const answer = this.finish(run, outcome);
    const webhook = run.kwargs.webhook;
    if (typeof webhook === 'string') {
      const payload = webhookPayload(run, outcome, startedAt, this.nowIso());
      // Sent once the run's end is committed, so that the receiver reading the run finds it ended.
      this.parts.runs.afterCommit(() =>
        sendWebhook(webhook, payload).catch((error: Error) =>
          this.parts.onNotice(`the webhook of run ${run.run_id} to ${webhook} failed: ${error.message}`),
        ),
      );
    }
    if (outcome.status === 'error') log.publish('error', outcome.error);
    this.events.end(run.run_id, answer, isResumable(run));
    observer?.runEnded(endingOf(outcome));
    queueMicrotask(() => this.kick(run.thread_id));
  }

  /** Records how a run ended, settles its thread (or deletes a stateless run's), and answers what waiters get. */
  private finish(run: RunRow, outcome: RunOutcome): RunAnswer {
    const { runs, threads } = this.parts;
    // A run that stopped at an interrupt or a breakpoint answers what it waits at, as LangGraph's
    // last `values` event has it: `{"__interrupt__": [...]}` (empty at a breakpoint). One that
    // ended answers its thread's values: their JSON text joined from the stored items' texts, and
    // stored as a manifest naming those items rather than a copy of them (decision E29).
    const waitsOrFailed: RunWaitResult | undefined =
      outcome.status === 'error' ? { __error__: outcome.error } : outcome.interrupts ? { __interrupt__: outcome.interrupts } : undefined;
    const answer: RunAnswer =
      waitsOrFailed ?? threads.items.answer<RunWaitResult>(run.thread_id, outcome.status === 'success' ? outcome.values : {});
    runs.transaction(() => {
      if (!runs.exists(run.run_id)) return;
      if (waitsOrFailed) runs.finish(run.run_id, outcome.status, waitsOrFailed, this.nowIso());
      else if (outcome.status === 'success') runs.finishWithValues(run, outcome.status, outcome.values, this.nowIso());
      // A stateless run's thread goes with it (and the run's row with the thread).
      if (run.kwargs.temporary === true) threads.delete(run.thread_id);
      else this.settleThread(run.thread_id, outcome.status === 'error' && outcome.refused ? 'refused' : outcome.status);
    });
    return answer;
  }

  /**
   * The thread's status once a run ended: `busy` while more runs wait, else `error` after a failed
   * run, `interrupted` while its latest checkpoint has nodes left to run, else `idle`. A run whose
   * resume strict resume refused (`refused`) ran nothing: the thread is as its state says, still
   * waiting at the interrupts it recorded.
   */
  private settleThread(threadId: string, ended: 'success' | 'error' | 'cancelled' | 'refused'): void {
    const { threads, runs } = this.parts;
    if (!threads.exists(threadId)) return;
    const latest = ended === 'cancelled' ? undefined : threads.latestCheckpoint(threadId);
    let status: ThreadStatus;
    if (runs.hasInFlight(threadId)) status = 'busy';
    else if (ended === 'error') status = 'error';
    else if ((latest?.next.length ?? 0) > 0) status = 'interrupted';
    else status = 'idle';
    // A resume strict resume refused ran nothing: the interrupts recorded when the thread began to wait stay.
    if (ended === 'refused') {
      threads.setStatus(threadId, status, this.nowIso());
      return;
    }
    // What the thread waits at, per task of its latest checkpoint, as LangGraph's servers record it
    // when a run ends; a cancelled run leaves nothing recorded.
    const interrupts = latest ? Object.fromEntries(latest.tasks.map((task) => [task.id, task.interrupts ?? []])) : null;
    threads.settle(threadId, status, interrupts, this.nowIso());
  }

  private threadValues(threadId: string): Values {
    return this.parts.threads.latestCheckpoint(threadId)?.values ?? {};
  }
}

/** An error of a scripted graph's own making (no matching reply, a graph no longer configured): the run fails with it. */
export class ScriptError extends Error {
  override name = 'Error';
}

const isResumable = (run: RunRow): boolean => run.kwargs.resumable === true;

const endingOf = (outcome: RunOutcome): RunEnding =>
  outcome.status === 'error'
    ? { status: 'error', error: outcome.error }
    : { status: 'success', ...(outcome.interrupts ? { interrupts: outcome.interrupts } : {}) };

const graphIdOf = (run: RunRow): string => String(((run.kwargs.config as Values).configurable as Values).graph_id);

/** LangGraph's config merge: later configs win key by key, `configurable` merged one level down. */
function mergeConfig(...configs: Values[]): Values {
  const merged: Values = Object.assign({}, ...configs);
  merged.configurable = Object.assign({}, ...configs.map((config) => (config.configurable as Values | undefined) ?? {}));
  return merged;
}

/** The run's context over its assistant's: merged when both are objects, else the run's when it has one. */
function mergeContext(assistant: unknown, run: unknown): unknown {
  const isObject = (value: unknown): value is Values => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isObject(assistant) && (run === undefined || isObject(run))) return { ...assistant, ...(run ?? {}) };
  return run === undefined ? (assistant ?? {}) : run;
}

function withoutUndefined(object: Values): Run['kwargs'] {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}
