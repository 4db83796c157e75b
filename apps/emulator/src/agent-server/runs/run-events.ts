// A run's events, written once by the run engine as the run goes (its metadata, each step's values
// and writes, its error, its end) and only read by whoever follows the run: waiters (waitRun,
// joinRun) read its end, streams read the events they asked for. Events live in memory while the
// run is in flight; what outlives the run (its answer to waiters) is in its row.
import type { RunWaitResult } from '@agentplane/agent-server';
import type { JsonText } from '../../contract/json-text.js';

/** What a run's waiters are answered: its answer, or the JSON text of it (a thread's values, joined from their stored texts). */
export type RunAnswer = RunWaitResult | JsonText<RunWaitResult>;

export interface RunEvent {
  /** The event's place in the run's log, from 0. */
  id: number;
  event: string;
  data: unknown;
}

type Listener = (event: RunEvent) => void;
type EndListener = (outcome: RunAnswer) => void;

/** One run's log of events, and who follows it. */
export class RunEventLog {
  readonly events: RunEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly endListeners = new Set<EndListener>();
  private outcome: RunAnswer | undefined;
  /** Where each checkpoint the run wrote ends in the log: the place of the first event after its own. */
  private readonly checkpointEnds = new Map<string, number>();
  /** Resolved once someone waits for the run's end (a wait, a join, a stream) or a run is queued behind it. */
  private awaited: { promise: Promise<void>; resolve: () => void } | undefined;

  publish(event: string, data: unknown): void {
    const published = { id: this.events.length, event, data };
    this.events.push(published);
    for (const listener of this.listeners) listener(published);
  }

  /** The run wrote a checkpoint and has published its events (its state, its checkpoint): what follows comes after it. */
  checkpointStreamed(checkpointId: string): void {
    this.checkpointEnds.set(checkpointId, this.events.length);
  }

  /** The place of the first event after this checkpoint; undefined when the run wrote no checkpoint with this ID. */
  afterCheckpoint(checkpointId: string): number | undefined {
    return this.checkpointEnds.get(checkpointId);
  }

  /** The run ended: every follower hears its outcome once, and the log takes no more events. */
  end(outcome: RunAnswer): void {
    if (this.outcome) return;
    this.outcome = outcome;
    for (const listener of this.endListeners) listener(outcome);
    this.listeners.clear();
    this.endListeners.clear();
  }

  /**
   * Resolves once a client waits for the run to end (a wait, a join, a stream of it) or another run
   * is queued behind it: what tells a replay that the run was not cancelled where a recording
   * holds it both ways.
   */
  whenAwaited(): Promise<void> {
    if (!this.awaited) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      this.awaited = { promise, resolve };
      if (this.endListeners.size > 0) resolve();
    }
    return this.awaited.promise;
  }

  /** Whether a client waits for the run already (its creator waits for it, or streams it). */
  get awaitedNow(): boolean {
    return this.endListeners.size > 0;
  }

  /** Another run waits its turn behind this one. */
  markAwaited(): void {
    void this.whenAwaited();
    this.awaited!.resolve();
  }

  /** Whether a stream reads the run's events as they come. */
  get followed(): boolean {
    return this.listeners.size > 0;
  }

  get ended(): boolean {
    return this.outcome !== undefined;
  }

  /** Calls `onEvent` for each event from now on, and `onEnd` once the run ends; returns an unsubscribe. */
  follow(onEvent: Listener | undefined, onEnd: EndListener): () => void {
    if (this.outcome) {
      onEnd(this.outcome);
      return () => {};
    }
    if (onEvent) this.listeners.add(onEvent);
    this.endListeners.add(onEnd);
    this.awaited?.resolve();
    return () => {
      if (onEvent) this.listeners.delete(onEvent);
      this.endListeners.delete(onEnd);
    };
  }
}

/** A thread stream's view of the thread's runs. */
export interface ThreadWatcher {
  onRun(runId: string, log: RunEventLog): void;
  onGone(): void;
}

/**
 * The logs of the runs in flight, by run ID, and the ended logs of resumable runs (`stream_resumable`),
 * kept for `keptMs` after their end so that a client can replay them with `Last-Event-ID`.
 */
export class RunEvents {
  private readonly logs = new Map<string, RunEventLog>();
  private readonly kept = new Map<string, { log: RunEventLog; timer: NodeJS.Timeout }>();
  /** Who follows each thread's runs (thread streams): told of each run that starts, and of the thread's end. */
  private readonly threadWatchers = new Map<string, Set<ThreadWatcher>>();

  constructor(private readonly keptMs: number) {}

  /** The log of a run, made when the run is created (or started again after a restart). */
  open(runId: string): RunEventLog {
    let log = this.logs.get(runId);
    if (!log) {
      log = new RunEventLog();
      this.logs.set(runId, log);
    }
    return log;
  }

  /** The log of a run in flight. */
  get(runId: string): RunEventLog | undefined {
    return this.logs.get(runId);
  }

  /** What a stream can read of a run: its log while in flight, or the kept log of an ended resumable run. */
  readable(runId: string): RunEventLog | undefined {
    return this.logs.get(runId) ?? this.kept.get(runId)?.log;
  }

  /**
   * Ends a run's log with its outcome and lets it go (later waiters read the outcome from the
   * run's row), or keeps it a while when the run's stream is resumable.
   */
  end(runId: string, outcome: RunAnswer, resumable = false): void {
    const log = this.logs.get(runId);
    if (!log) return;
    this.logs.delete(runId);
    log.end(outcome);
    if (!resumable || this.keptMs <= 0) return;
    const timer = setTimeout(() => this.kept.delete(runId), this.keptMs);
    timer.unref();
    this.kept.set(runId, { log, timer });
  }

  /** Follows the runs of a thread as they start executing, until the thread is deleted; returns an unsubscribe. */
  watchThread(threadId: string, watcher: ThreadWatcher): () => void {
    let watchers = this.threadWatchers.get(threadId);
    if (!watchers) {
      watchers = new Set();
      this.threadWatchers.set(threadId, watchers);
    }
    const mine = watchers;
    mine.add(watcher);
    return () => {
      mine.delete(watcher);
      if (mine.size === 0 && this.threadWatchers.get(threadId) === mine) this.threadWatchers.delete(threadId);
    };
  }

  /** A run of the thread starts executing with this log (before its first event). */
  runStarted(threadId: string, runId: string, log: RunEventLog): void {
    for (const watcher of this.threadWatchers.get(threadId) ?? []) watcher.onRun(runId, log);
  }

  /** The thread was deleted: its watchers stop. */
  threadGone(threadId: string): void {
    const watchers = this.threadWatchers.get(threadId);
    this.threadWatchers.delete(threadId);
    for (const watcher of watchers ?? []) watcher.onGone();
  }

  /** Drops a run's kept events (the run was deleted). */
  forget(runId: string): void {
    const kept = this.kept.get(runId);
    if (!kept) return;
    clearTimeout(kept.timer);
    this.kept.delete(runId);
  }

  /** Drops every kept log: the emulator is closing. */
  close(): void {
    for (const { timer } of this.kept.values()) clearTimeout(timer);
    this.kept.clear();
  }
}
