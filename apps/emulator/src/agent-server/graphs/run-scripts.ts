// The `runs` of a graph of any shape: what a run does, by its input. A run with input takes the
// first entry at or after the thread's cursor (wrapping around) whose `match` matches the text of
// the last human message and whose `match_input` matches the input as JSON, and the cursor moves
// past it, as replies are chosen. The entry's steps are then the run's supersteps, one after the
// other; where a run stands in them (its position) is saved with each checkpoint it writes, so a
// run that goes on from a checkpoint (a resume, a breakpoint, a fork) takes the steps from there.
import { globToRegExp } from '../../shared/glob.js';
import type { StepPlan } from './graph-types.js';

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
  match: RegExp | undefined;
  matchInput: RegExp | undefined;
  steps: StepPlan[];
}

export class RunScripts {
  constructor(readonly scripts: readonly RunScript[]) {}

  /** The entry a run with this input follows from `cursor`, and the cursor after it; undefined when none matches. */
  choose(cursor: number, input: { text: string; json: string }): { index: number; nextCursor: number } | undefined {
    const count = this.scripts.length;
    for (let offset = 0; offset < count; offset++) {
      const index = (cursor + offset) % count;
      const { match, matchInput } = this.scripts[index]!;
      if (match && !match.test(input.text)) continue;
      if (matchInput && !matchInput.test(input.json)) continue;
      return { index, nextCursor: (index + 1) % count };
    }
    return undefined;
  }

  /** The superstep at a position; undefined at the end (or past it). */
  step(position: ScriptPosition): StepPlan | undefined {
    return this.scripts[position.run]?.steps[position.step];
  }

  /** The nodes of the superstep at a position: the `next` of a checkpoint written there ([] at the end). */
  nodesAt(position: ScriptPosition): string[] {
    return (this.step(position) ?? []).map((task) => task.node);
  }
}

export function runScript(entry: { match?: string; match_input?: string }, steps: StepPlan[]): RunScript {
  return {
    match: entry.match === undefined ? undefined : globToRegExp(entry.match),
    matchInput: entry.match_input === undefined ? undefined : globToRegExp(entry.match_input),
    steps,
  };
}
