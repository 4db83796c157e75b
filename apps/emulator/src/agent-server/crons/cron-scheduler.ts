// The scheduler of crons (decision E23): it makes the runs crons call for, on the emulator's clock.
// One timer waits for the earliest next run of all crons (read from the crons' partial index), so
// a thousand crons cost one timer. Every request of the agent server API first makes the runs
// that are due by the clock (`runDue`, like the expiry of threads): a test that moves the clock
// of an in-process emulator sees the runs at once, with no wait. `speed` runs the schedule faster
// on a port: the schedule's clock (`scheduleNow`) then runs `speed` times faster than the
// emulator's from start-up, and every time of a schedule is on it.
//
// A run and the move of its cron's `next_run_ms` are one transaction, so a time is never run
// twice, whatever stops the process. A time missed while the process was down is run once at
// start-up, however many were missed, and the next one is counted from then.
import { HttpError } from '../../http/http-error.js';
import type { RunEngine } from '../runs/run-engine.js';
import { nextRunTime, parseSchedule } from './cron-schedule.js';
import type { CronRow, CronStore } from './cron-store.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

/** When a cron makes its next run after `afterMs`: null when disabled, past its end, or with no time left. */
export function nextRunMs(cron: Pick<CronRow, 'schedule' | 'timezone' | 'end_time' | 'enabled'>, afterMs: number): number | null {
  if (!cron.enabled) return null;
  const next = nextRunTime(parseSchedule(cron.schedule), afterMs, cron.timezone ?? 'UTC');
  if (next === null || (cron.end_time !== null && next > Date.parse(cron.end_time))) return null;
  return next;
}

export interface CronSchedulerParts {
  crons: CronStore;
  engine: Pick<RunEngine, 'create'>;
  /** The emulator's clock. */
  now: () => number;
  /** How many times faster than the clock the schedule runs (1: as the clock). */
  speed: number;
  /** Where a time whose run could not be made is told (a thread busy with `reject`, a graph no longer served). */
  onNotice: (message: string) => void;
}

export class CronScheduler {
  private timer: NodeJS.Timeout | undefined;
  /** The earliest next run of any cron (null: none), or undefined when it must be read again. */
  private earliest: number | null | undefined;
  private closed = false;
  /** When the schedule's clock started, on the emulator's clock (it then read the same). */
  private readonly startedAt: number;

  constructor(private readonly parts: CronSchedulerParts) {
    this.startedAt = parts.now();
  }

  /** The schedule's clock: the emulator's, or `speed` times faster than it since start-up. */
  scheduleNow(): number {
    const now = this.parts.now();
    return this.parts.speed === 1 ? now : this.startedAt + (now - this.startedAt) * this.parts.speed;
  }

  /** Starts waiting for the next run (at start-up: the times missed while the process was down are due). */
  start(): void {
    this.arm();
  }

  /** Makes the runs of every cron due by now (before each request). */
  runDue(): void {
    this.fire(this.scheduleNow());
  }

  /** A cron was created, changed or deleted: its next run may be the earliest. */
  changed(): void {
    this.earliest = undefined;
    this.arm();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private fire(untilMs: number): void {
    if (this.closed) return;
    if (this.earliest === undefined) this.earliest = this.parts.crons.earliestDue();
    if (this.earliest === null || untilMs < this.earliest) return;
    const due = this.parts.crons.transaction(() => this.parts.crons.due(untilMs));
    for (const cron of due) this.makeRun(cron);
    this.changed();
  }

  /** One run of the cron, and its next time, together. */
  private makeRun(cron: CronRow): void {
    const { crons, engine, onNotice } = this.parts;
    crons.transaction(() => {
      const dueAt = cron.next_run_ms!;
      try {
        engine.create(cron.thread_id, {
          ...cron.payload,
          assistant_id: cron.assistant_id,
          metadata: { ...cron.metadata, cron_id: cron.cron_id },
          ...(cron.thread_id === null ? { on_completion: cron.on_run_completed ?? 'delete' } : {}),
        });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        onNotice(`cron ${cron.cron_id}: the run due at ${new Date(dueAt).toISOString()} was not made: ${String(error.detail)}`);
      }
      // After the time just run, or after now when times were missed: a missed time is run once.
      crons.setNextRun(cron.cron_id, nextRunMs(cron, Math.max(dueAt, this.scheduleNow())));
    });
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    if (this.earliest === undefined) this.earliest = this.parts.crons.earliestDue();
    const earliest = this.earliest;
    if (earliest === null) return;
    const wait = Math.max(0, Math.ceil((earliest - this.scheduleNow()) / this.parts.speed));
    // A timer holds at most 2^31 − 1 ms (24.8 days); a later run is looked at again then. Only
    // what the clock says is due is made, so a clock a test holds still makes nothing.
    if (wait > MAX_TIMER_MS) this.timer = setTimeout(() => this.arm(), MAX_TIMER_MS);
    else
      this.timer = setTimeout(() => {
        this.fire(this.scheduleNow());
        this.arm();
      }, wait);
  }
}
