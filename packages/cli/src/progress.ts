// Progress of a wait, on stderr (stdout is for the result). Two renderings:
// - TTY: each finished status stays as a line with the time spent in it, and the current one is
//   a live line whose elapsed time ticks (redrawn in place).
// - CI (or any non-TTY stderr): one plain line per status change, nothing redrawn, so logs stay
//   readable.
import type { Revision, RevisionStatus } from '@agentplane/control-plane';
import { isTerminalRevisionStatus } from '@agentplane/control-plane';
import { formatDuration } from './format.js';

export interface Writer {
  write(text: string): unknown;
}

export interface Snapshot {
  /** The last status seen, if any poll succeeded. */
  status: RevisionStatus | undefined;
  revision: Revision | undefined;
  /** Time spent in that status so far. */
  inStatusMs: number;
  /** Time since the wait began. */
  totalMs: number;
}

export interface Progress {
  /** A line of narration ("Updating billing-agent..."). */
  note(text: string): void;
  /** The wait begins now. */
  begin(): void;
  /** The revision's status changed (the first status included). */
  status(revision: Revision): void;
  /** The wait ended (any way): stop redrawing and leave the last status on its own line. */
  end(): void;
  snapshot(): Snapshot;
}

const STATUS_WIDTH = 16;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

abstract class Tracker implements Progress {
  protected started = 0;
  protected since = 0;
  protected current: Revision | undefined;

  constructor(
    protected readonly out: Writer,
    protected readonly now: () => number,
  ) {}

  abstract note(text: string): void;
  abstract status(revision: Revision): void;
  abstract end(): void;

  begin(): void {
    this.started = this.now();
    this.since = this.started;
  }

  snapshot(): Snapshot {
    const now = this.now();
    return { status: this.current?.status, revision: this.current, inStatusMs: now - this.since, totalMs: now - this.started };
  }

  /** Records a status change; returns the previous status and how long it lasted. */
  protected advance(revision: Revision): { previous: RevisionStatus | undefined; lastedMs: number } {
    const now = this.now();
    const previous = this.current?.status;
    const lastedMs = now - this.since;
    this.current = revision;
    this.since = now;
    return { previous, lastedMs };
  }
}

/** One plain line per status change. */
export class PlainProgress extends Tracker {
  note(text: string): void {
    this.out.write(`${text}\n`);
  }

  status(revision: Revision): void {
    const { previous, lastedMs } = this.advance(revision);
    const total = formatDuration(this.now() - this.started).padStart(7);
    const took = previous ? `  (${previous} took ${formatDuration(lastedMs)})` : '';
    this.out.write(`${`${total}  ${revision.status.padEnd(STATUS_WIDTH)}${took}`.trimEnd()}\n`);
  }

  end(): void {}
}

/** Finished statuses as lines, the current one as a live, ticking line. */
export class LiveProgress extends Tracker {
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;
  private drawn = false;

  constructor(
    out: Writer,
    now: () => number,
    private readonly columns: number = 80,
    private readonly tickMs: number = 250,
  ) {
    super(out, now);
  }

  note(text: string): void {
    this.clear();
    this.out.write(`${text}\n`);
    this.draw();
  }

  status(revision: Revision): void {
    this.clear();
    const { previous, lastedMs } = this.advance(revision);
    if (previous) this.out.write(`  ✓ ${previous.padEnd(STATUS_WIDTH)} ${formatDuration(lastedMs)}\n`);
    if (!this.timer) {
      this.timer = setInterval(() => {
        this.frame++;
        this.clear();
        this.draw();
      }, this.tickMs);
      this.timer.unref?.();
    }
    this.draw();
  }

  end(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
    const { status, inStatusMs, totalMs } = this.snapshot();
    if (!status) return;
    const mark = status === 'DEPLOYED' ? '✓' : isTerminalRevisionStatus(status) ? '✗' : '…';
    const timing = isTerminalRevisionStatus(status)
      ? `after ${formatDuration(totalMs)}`
      : `${formatDuration(inStatusMs)} so far (${formatDuration(totalMs)} in all)`;
    this.out.write(`  ${mark} ${status.padEnd(STATUS_WIDTH)} ${timing}\n`);
  }

  private draw(): void {
    if (!this.current || !this.timer) return;
    const { inStatusMs, totalMs } = this.snapshot();
    const line = `  ${SPINNER[this.frame % SPINNER.length]} ${this.current.status.padEnd(STATUS_WIDTH)} ${formatDuration(inStatusMs)}   (${formatDuration(totalMs)} in all)`;
    // Never wider than the terminal: a wrapped line could not be redrawn in place.
    // A terminal that reports no size (0, as some pseudo-terminals do) gets 80 columns.
    const columns = this.columns > 0 ? this.columns : 80;
    this.out.write(line.slice(0, Math.max(10, columns - 1)));
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.out.write('\r\x1b[2K');
    this.drawn = false;
  }
}
