// The `runs` of a graph of any shape: what a run does, by what it was asked and where the thread
// stands. The entry's steps are then the run's supersteps, one after the other; where a run stands
// in them (its position) is saved with each checkpoint it writes, so a run that goes on from a
// checkpoint (a resume, a breakpoint, a fork) takes the steps from there.
//
// Choosing an entry (run-requests.ts says what decides a run):
// - An entry with `request` answers exactly that request, started where its `continues` says (or
//   where no entry's run left the thread). Several such entries alike are holds of one request
//   that ended differently (a cancel, a model that answered otherwise): they are used in turn, the
//   n-th run so asked taking the n-th hold, as the recording saw them.
// - An entry without `request` is a script a person wrote: a run with input takes the first at or
//   after the thread's cursor (wrapping around) whose `match` and `match_input` fit, and the
//   cursor moves past it; a resume, `input: null` or a command goes on in the entry the thread
//   stands in, unless an entry `continues` from there.
// - A run no entry answers is refused, naming what differs from the nearest entry.
import { globToRegExp } from '../../shared/glob.js';
import type { StepPlan } from './graph-types.js';
import type { EntryRequest, RunKind, RunRequest } from './run-requests.js';
import { describeDifference, entryKind, requestDifferences, selectorKey } from './run-requests.js';

/**
 * Where a run stands in its script: the entry and the step that runs next (`steps.length`: the
 * end); while a task waits at its second interrupt or later, the resume values it was given so far.
 */
export interface ScriptPosition {
  run: number;
  step: number;
  resumes?: Record<string, unknown[]>;
}

export interface RunScript {
  id: string | undefined;
  kind: RunKind;
  match: RegExp | undefined;
  matchInput: RegExp | undefined;
  /** The glob texts, for refusals. */
  globs: { match?: string | undefined; match_input?: string | undefined };
  /** The entry (by index) this one goes on from, and the step when it starts at an earlier checkpoint of it. */
  continues: { run: number; step: number | undefined } | undefined;
  request: EntryRequest | undefined;
  steps: StepPlan[];
  /** The nodes the thread waits before once the steps are done. */
  next: string[] | undefined;
  /** The run waits to be cancelled where its steps end. */
  untilCancelled: boolean;
  /** Entries with the same key are holds of one request. */
  key: string;
}

/**
 * The entry a run follows: its index; a run with input moves the thread's cursor; `inPlace` goes on
 * in the entry the thread stands in. `unlessCancelledAt`: the entry is a hold of this request
 * cancelled after that many steps (-1: before it wrote anything), which `goesOnAs` (a hold that
 * went on) begins with: the run waits there until it is cancelled, or until a client waits for it,
 * and then goes on as `goesOnAs`.
 */
export type ScriptChoice =
  | { index: number; nextCursor?: number; inPlace?: boolean; unlessCancelledAt?: number; goesOnAs?: number }
  | { refusal: string };

export class RunScripts {
  /** How many runs took a hold of each request so far (this process). */
  private readonly turns = new Map<string, number>();

  constructor(
    private readonly graphId: string,
    readonly scripts: readonly RunScript[],
  ) {}

  /**
   * The entry a run with this request follows, from where the thread stands (`from`) and the
   * thread's cursor; `waitedFor`: its client waits for it from the start (a wait, a stream), so
   * what happens next cannot tell its holds apart.
   */
  choose(request: RunRequest, from: ScriptPosition | undefined, cursor: number, waitedFor = false): ScriptChoice {
    const fitting = (exact: boolean) =>
      this.scripts.flatMap((script, index) =>
        script.kind === request.kind && (script.request !== undefined) === exact && this.differences(script, request, from).length === 0
          ? [index]
          : [],
      );
    const exact = fitting(true);
    if (exact.length > 0) {
      const key = this.scripts[exact[0]!]!.key;
      const holds = exact.filter((index) => this.scripts[index]!.key === key);
      return this.holdOf(key, holds, waitedFor);
    }
    const lenient = fitting(false);
    if (request.kind === 'input') {
      const count = this.scripts.length;
      for (let offset = 0; offset < count; offset++) {
        const index = (cursor + offset) % count;
        if (lenient.includes(index)) return { index, nextCursor: (index + 1) % count };
      }
    } else if (lenient.length > 0) return { index: lenient[0]! };
    // A person's script goes on where it stands, unless it says what goes on from there.
    const standing = from === undefined ? undefined : this.scripts[from.run];
    const continued =
      from !== undefined && this.scripts.some((script) => script.kind === request.kind && script.continues?.run === from.run);
    const handWritten = from === undefined ? !this.scripts.some((script) => script.request) : standing !== undefined && !standing.request;
    if (request.kind !== 'input' && handWritten && !continued) return { index: from?.run ?? -1, inPlace: true };
    return { refusal: this.refusal(request, from) };
  }

  /**
   * Which of the holds of one request a run takes. A hold that went on is preferred to one that was
   * cancelled, which a replay reaches only by a cancel: a run made in the background waits where a
   * cancelled hold stopped, until it is cancelled too, or a client waits for it (or queues a run
   * behind it), and then goes on; a run its client waits for from the start goes on. Holds alike
   * in that are taken in turn, the n-th run so asked the n-th hold.
   */
  private holdOf(key: string, holds: readonly number[], waitedFor: boolean): ScriptChoice {
    const finishing = holds.filter((index) => !this.scripts[index]!.untilCancelled);
    const cancelled = holds.filter((index) => this.scripts[index]!.untilCancelled);
    const pool = finishing.length > 0 ? finishing : holds;
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, turn + 1);
    const index = pool[turn % pool.length]!;
    // A run its client waits for from the start goes on, unless every hold was cancelled: a cancel comes when it comes.
    if (waitedFor || finishing.length === 0 || cancelled.length === 0) return { index };
    // Until the cut the run is the cancelled hold's (where it stands is that hold's, for the runs that go on from a cancel).
    for (const other of cancelled) {
      const cut = this.cutPoint(this.scripts[other]!, this.scripts[index]!);
      if (cut !== undefined) return { index: other, unlessCancelledAt: cut, goesOnAs: index };
    }
    return { index: holds[turn % holds.length]! };
  }

  /** Where a cancelled hold stopped in a hold that went on: its steps are the other's first ones, and it waited before the next (-1: before anything). */
  private cutPoint(cancelled: RunScript, whole: RunScript): number | undefined {
    const nodes = (steps: readonly StepPlan[]) => steps.map((step) => step.map((task) => task.node).join(','));
    const prefix = nodes(cancelled.steps);
    if (prefix.some((step, i) => step !== nodes(whole.steps)[i])) return undefined;
    if (cancelled.next === undefined) return cancelled.steps.length === 0 ? -1 : undefined;
    const following = whole.steps[cancelled.steps.length];
    const same = following !== undefined && following.map((task) => task.node).join(',') === [...cancelled.next].join(',');
    return same ? cancelled.steps.length : undefined;
  }

  /** The superstep at a position; undefined at the end (or past it). */
  step(position: ScriptPosition): StepPlan | undefined {
    return this.scripts[position.run]?.steps[position.step];
  }

  /** Whether a position is past its entry's steps. */
  isPastSteps(position: ScriptPosition): boolean {
    const script = this.scripts[position.run];
    return script !== undefined && position.step >= script.steps.length;
  }

  /** The entry of a position. */
  entryAt(position: ScriptPosition | undefined): RunScript | undefined {
    return position === undefined ? undefined : this.scripts[position.run];
  }

  /**
   * The nodes of the superstep at a position: the `next` of a checkpoint written there; past the
   * steps, the nodes the entry's run stopped before (none when it ended).
   */
  nodesAt(position: ScriptPosition): string[] {
    const step = this.step(position);
    if (step) return step.map((task) => task.node);
    return [...(this.scripts[position.run]?.next ?? [])];
  }

  /** What keeps an entry from answering a run: one line per difference (none: it answers it). */
  private differences(script: RunScript, request: RunRequest, from: ScriptPosition | undefined): string[] {
    const differences: string[] = [];
    if (request.kind === 'input') {
      if (script.match && !script.match.test(request.text))
        differences.push(
          `the last human message (recorded ${JSON.stringify(script.globs.match)}, this run ${JSON.stringify(request.text)})`,
        );
      const json = JSON.stringify(request.input ?? null);
      if (script.matchInput && !script.matchInput.test(json))
        differences.push(`the input (recorded ${script.globs.match_input}, this run ${json})`);
    }
    if (!this.standsWhere(script, from))
      differences.push(`where the thread stands (recorded: ${this.describeStart(script)}, this run: ${this.describeFrom(from)})`);
    if (script.request)
      differences.push(...requestDifferences(script.request, request, script.matchInput !== undefined).map(describeDifference));
    return differences;
  }

  /** Whether the thread stands where an entry starts: where its `continues` says, or (an exact entry) where no entry's run left it. */
  private standsWhere(script: RunScript, from: ScriptPosition | undefined): boolean {
    if (!script.continues) return script.request === undefined || from === undefined;
    if (from?.run !== script.continues.run) return false;
    if (script.continues.step !== undefined) return from.step === script.continues.step;
    // Where the run left it: past its last step, or at it when it stopped in it (an interrupt, an error, a subgraph's breakpoint).
    return from.step >= Math.max(0, (this.scripts[from.run]?.steps.length ?? 0) - 1);
  }

  private describeStart(script: RunScript): string {
    if (!script.continues) return 'where no recorded run left it';
    const after = this.label(script.continues.run);
    return script.continues.step === undefined ? `where ${after} left it` : `before step ${script.continues.step} of ${after}`;
  }

  private describeFrom(from: ScriptPosition | undefined): string {
    if (!from || !this.scripts[from.run]) return 'where no recorded run left it';
    const label = this.label(from.run);
    return this.isPastSteps(from) || from.step >= this.scripts[from.run]!.steps.length - 1
      ? `where ${label} left it`
      : `before step ${from.step} of ${label}`;
  }

  /** How a refusal names an entry: its place, its id, its match. */
  private label(index: number): string {
    const script = this.scripts[index]!;
    const id = script.id === undefined ? '' : ` (${script.id})`;
    const match = script.globs.match === undefined ? '' : ` ${JSON.stringify(script.globs.match)}`;
    return `runs[${index}]${id}${match}`;
  }

  /** Why no entry answers a run: with exact entries, what differs from the nearest; else, as a person's script says it. */
  private refusal(request: RunRequest, from: ScriptPosition | undefined): string {
    const what = request.kind === 'input' ? 'input' : request.kind === 'command' ? 'command' : 'run that goes on (input null)';
    const candidates = this.scripts.flatMap((script, index) =>
      script.kind === request.kind ? [{ index, differences: this.differences(script, request, from) }] : [],
    );
    if (!this.scripts.some((script) => script.request) && request.kind === 'input')
      return `No scripted run of graph "${this.graphId}" matches the input ${JSON.stringify(request.text === '' ? request.input : request.text)}`;
    if (candidates.length === 0)
      return `No recorded run of graph "${this.graphId}" answers this request: none is a ${what}${from ? ` from ${this.describeFrom(from)}` : ''}`;
    const nearest = candidates.reduce((best, candidate) => (candidate.differences.length < best.differences.length ? candidate : best));
    return `No recorded run of graph "${this.graphId}" answers this ${what}: the nearest, ${this.label(nearest.index)}, differs in ${nearest.differences.join('; ')}`;
  }
}

/** An entry of `runs`, compiled: its selectors, its steps and how it ends. `ids` gives the index of each entry's id. */
export function runScript(
  entry: {
    id?: string;
    match?: string;
    match_input?: string;
    continues?: string | { run: string; step: number };
    request?: EntryRequest;
    next?: string[];
    until_cancelled?: boolean;
  },
  steps: StepPlan[],
  ids: ReadonlyMap<string, number>,
): RunScript {
  const continued =
    entry.continues === undefined ? undefined : typeof entry.continues === 'string' ? { run: entry.continues } : entry.continues;
  return {
    id: entry.id,
    kind: entryKind(entry),
    match: entry.match === undefined ? undefined : globToRegExp(entry.match),
    matchInput: entry.match_input === undefined ? undefined : globToRegExp(entry.match_input),
    globs: { match: entry.match, match_input: entry.match_input },
    continues: continued && { run: ids.get(continued.run) ?? -1, step: 'step' in continued ? continued.step : undefined },
    request: entry.request,
    steps,
    next: entry.next,
    untilCancelled: entry.until_cancelled ?? false,
    key: selectorKey(entry),
  };
}
