// A run's events, written once by the run engine as the run goes (its metadata, each step's values
// and writes, its error, its end) and only read by whoever follows the run: waiters (waitRun,
// joinRun) read its end, streams read the events they asked for. Events live in memory while the
// run is in flight; what outlives the run (its answer to waiters) is in its row.
import type { RunWaitResult } from '@agentplane/agent-server';

export interface RunEvent {
  /** The event's place in the run's log, from 0. */
  id: number;
  event: string;
  data: unknown;
}

type Listener = (event: RunEvent) => void;
type EndListener = (outcome: RunWaitResult) => void;

/** One run's log of events, and who follows it. */
export class RunEventLog {
  readonly events: RunEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly endListeners = new Set<EndListener>();
  private outcome: RunWaitResult | undefined;

  publish(event: string, data: unknown): void {
    const published = { id: this.events.length, event, data };
    this.events.push(published);
    for (const listener of this.listeners) listener(published);
  }

  /** The run ended: every follower hears its outcome once, and the log takes no more events. */
  end(outcome: RunWaitResult): void {
    if (this.outcome) return;
    this.outcome = outcome;
    for (const listener of this.endListeners) listener(outcome);
    this.listeners.clear();
    this.endListeners.clear();
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
    return () => {
      if (onEvent) this.listeners.delete(onEvent);
      this.endListeners.delete(onEnd);
    };
  }
}

/** The logs of the runs in flight, by run ID. */
export class RunEvents {
  private readonly logs = new Map<string, RunEventLog>();

  /** The log of a run, made when the run is created (or started again after a restart). */
  open(runId: string): RunEventLog {
    let log = this.logs.get(runId);
    if (!log) {
      log = new RunEventLog();
      this.logs.set(runId, log);
    }
    return log;
  }

  get(runId: string): RunEventLog | undefined {
    return this.logs.get(runId);
  }

  /** Ends a run's log with its outcome and lets it go: later waiters read the outcome from the run's row. */
  end(runId: string, outcome: RunWaitResult): void {
    const log = this.logs.get(runId);
    if (!log) return;
    this.logs.delete(runId);
    log.end(outcome);
  }
}
