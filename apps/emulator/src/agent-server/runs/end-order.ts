// The parallel tasks of a superstep end in the order of their scripted time, whatever the timers
// do. A task's time is what it has paused so far (its `delay_ms`, its reply's pauses between
// chunks). On a loaded machine every timer fires late, so a task that pauses in many short steps
// falls behind one that pauses once for longer: a replay whose recorded tasks ended a few
// milliseconds apart (the recorder keeps the upstream's order in their times) then ended them in
// the other order, and its updates, tasks, debug events and the state's `next` with them.
//
// So a task that is done waits, before it ends, for each sibling that has paused for less time and
// not ended yet: that one ends first, or pauses past it. Equal times wait for nothing, so a graph
// run at timeScale 0, where nothing pauses, ends its tasks as they finish, as it always did.
export class EndOrder {
  private readonly pausedMs: number[];
  private readonly ended: boolean[];
  private waiting: (() => void)[] = [];

  constructor(tasks: number) {
    this.pausedMs = new Array<number>(tasks).fill(0);
    this.ended = new Array<boolean>(tasks).fill(false);
  }

  /** Task `i` pauses `scaledMs` now: it cannot end before it has. */
  pausing(i: number, scaledMs: number): void {
    this.pausedMs[i]! += scaledMs;
    this.wake();
  }

  /** Resolves once no sibling of task `i` that has paused for less time is still running. */
  async turnOf(i: number): Promise<void> {
    while (this.mustWait(i)) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Task `i` ended (or raised, or was left out of the ordering): nobody waits for it. */
  end(i: number): void {
    this.ended[i] = true;
    this.wake();
  }

  private mustWait(i: number): boolean {
    const mine = this.pausedMs[i]!;
    return this.pausedMs.some((theirs, j) => j !== i && !this.ended[j] && theirs < mine);
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
