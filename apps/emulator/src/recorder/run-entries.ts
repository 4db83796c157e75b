// A graph's `runs` from the holds of its runs (thread-runs.ts): one entry per request, so that a
// replay answers each request as the upstream answered that one.
//
// - Holds of one request (the same input or command, the same request, begun where the same entry
//   left the thread) that every client saw end alike are one entry: the hold whose stream showed
//   the most (chunks, custom events, tools seen running), so that a replay streams what the richest
//   client saw. A request that ended in several ways (a run cancelled once and not the next time, a
//   model that answered otherwise) has one entry per way, in the order each was first held: the
//   replay tells a cancel from a run that went on by what happens next, and uses the others in turn.
// - An entry that another goes on from is named (`id`), and the other says so (`continues`).
// - What the upstream said is written as it is: every `{{` in a recorded text is escaped, so that
//   no template reads it.
import { literalValue } from '../agent-server/graphs/templates.js';
import type { RecordedStep, RecordedTask } from './run-steps.js';
import type { RecordedRun, RunHold } from './thread-runs.js';

type Values = Record<string, unknown>;

/** An entry of `runs` as the recording writes it. */
export type RunEntry = { id?: string; continues?: string | { run: string; step: number } } & RecordedRun;

/** The entries of each graph's runs, from the holds of every thread in the order they were held. */
export function runEntries(holds: readonly RunHold[]): Map<string, RunEntry[]> {
  const entryOf = new Map<RunHold, { graphId: string; entry: RunEntry; order: number }>();
  const byRun = new Map(holds.map((hold) => [hold.runId, hold]));
  const depth = (hold: RunHold): number => {
    let levels = 0;
    for (let at = hold.from && byRun.get(hold.from.runId); at; at = at.from && byRun.get(at.from.runId)) levels++;
    return levels;
  };
  const levels = new Map<number, RunHold[]>();
  for (const hold of holds) levels.set(depth(hold), [...(levels.get(depth(hold)) ?? []), hold]);
  const entries: { graphId: string; entry: RunEntry; order: number }[] = [];
  // Level by level: a hold's request includes the entry it began from, known once its level is done.
  for (const level of [...levels.keys()].sort((a, b) => a - b)) {
    const groups = new Map<string, RunHold[]>();
    for (const hold of levels.get(level)!) {
      const parent = hold.from && byRun.get(hold.from.runId);
      const key = JSON.stringify([
        hold.graphId,
        selectorsOf(hold.run),
        parent ? entries.indexOf(entryOf.get(parent)!) : -1,
        hold.from?.step,
      ]);
      groups.set(key, [...(groups.get(key) ?? []), hold]);
    }
    for (const group of groups.values()) {
      // One entry per way the request ended, in the order each was first held.
      const byOutcome = new Map<string, RunHold[]>();
      for (const hold of group) byOutcome.set(outcomeOf(hold.run), [...(byOutcome.get(outcomeOf(hold.run)) ?? []), hold]);
      for (const alike of byOutcome.values()) {
        const kept = richest(alike);
        const made = { graphId: kept.graphId, entry: { ...kept.run } as RunEntry, order: holds.indexOf(alike[0]!) };
        entries.push(made);
        for (const member of alike) entryOf.set(member, made);
      }
    }
  }
  // Names for the entries others go on from, and what each goes on from.
  const taken = new Set<string>();
  const nameOf = new Map<RunEntry, string>();
  const name = (entry: RunEntry) => {
    const known = nameOf.get(entry);
    if (known) return known;
    const base = slug(entry.match ?? (entry.request.command ? 'command' : entry.match_input ? 'input' : 'run'));
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    nameOf.set(entry, id);
    return id;
  };
  for (const hold of holds) {
    const made = entryOf.get(hold);
    const parent = hold.from && byRun.get(hold.from.runId);
    if (!made || !parent || made.entry.continues !== undefined) continue;
    const target = entryOf.get(parent)!.entry;
    made.entry.continues = hold.from!.step === undefined ? name(target) : { run: name(target), step: hold.from!.step };
  }
  const byGraph = new Map<string, RunEntry[]>();
  for (const { graphId, entry } of [...entries].sort((a, b) => a.order - b.order)) {
    const id = nameOf.get(entry);
    const { match, match_input, continues, request, steps, next, until_cancelled } = entry;
    const written: RunEntry = {
      ...(id === undefined ? {} : { id }),
      ...(match === undefined ? {} : { match }),
      ...(match_input === undefined ? {} : { match_input }),
      ...(continues === undefined ? {} : { continues }),
      request,
      steps: steps.map(literalStep),
      ...(next === undefined ? {} : { next }),
      ...(until_cancelled ? { until_cancelled } : {}),
    };
    byGraph.set(graphId, [...(byGraph.get(graphId) ?? []), written]);
  }
  return byGraph;
}

/** What selects an entry: its input and request (what it goes on from is added by the caller). */
const selectorsOf = (run: RecordedRun) => ({ match: run.match, match_input: run.match_input, request: run.request });

/** How a run ended, as every client sees it whatever it streamed: its steps, the nodes it stopped before, a cancel. */
function outcomeOf(run: RecordedRun): string {
  return JSON.stringify([whatEveryClientSees(run.steps), run.next ?? null, run.until_cancelled ?? false]);
}

/** The hold whose stream showed the most; the first of those alike. */
function richest(holds: readonly RunHold[]): RunHold {
  return holds.reduce((best, hold) => (streamedDetail(hold.run) > streamedDetail(best.run) ? hold : best));
}

/**
 * Steps as every client sees them, whatever it streamed: each task's node, interrupts, replies
 * (text, tool calls, name), what it wrote (a tool's answer by its content, however it was
 * recorded), its Command and its error, and its subgraph's steps, without timing, chunks or
 * custom events.
 */
function whatEveryClientSees(steps: readonly RecordedStep[]): string {
  const task = (recorded: RecordedTask) => {
    const actions = recorded.do ?? [
      ...(recorded.interrupt !== undefined ? [{ interrupt: recorded.interrupt }] : []),
      ...(recorded.message ? [{ message: recorded.message }] : []),
    ];
    const { messages, ...update } = recorded.update ?? {};
    const written = (Array.isArray(messages) ? messages : messages === undefined ? [] : [messages]) as Values[];
    const isToolAnswer = (message: Values) => message.type === 'tool' && typeof message.content === 'string';
    return {
      node: recorded.node,
      actions: actions.flatMap((action): Values[] => {
        if (action.interrupt !== undefined) return [{ interrupt: action.interrupt }];
        if (!action.message) return [];
        const { chunks: _chunks, chunk: _chunk, delay_ms: _delay, ...reply } = action.message as Values;
        return [{ message: reply }];
      }),
      update,
      messages: written.filter((message) => !isToolAnswer(message)),
      tool_answers: [...(recorded.tools ?? []), ...written.filter(isToolAnswer).map((message) => message.content)],
      goto: recorded.goto,
      error: recorded.error,
      subgraph: recorded.subgraph ? JSON.parse(whatEveryClientSees(recorded.subgraph)) : undefined,
    };
  };
  return JSON.stringify(steps.map((step) => ('parallel' in step ? { parallel: step.parallel.map(task) } : task(step))));
}

/** How much of a run only its stream showed: chunked replies, custom events, tools seen running. */
function streamedDetail(run: RecordedRun): number {
  let detail = 0;
  JSON.stringify(run, (key, item) => {
    if (key === 'chunks' || key === 'custom' || key === 'tools') detail++;
    return item;
  });
  return detail;
}

/** A step as the upstream did it: the texts and values of its tasks written literally (no template reads them). */
function literalStep(step: RecordedStep): RecordedStep {
  return 'parallel' in step ? { parallel: step.parallel.map(literalTask) } : literalTask(step);
}

function literalTask(task: RecordedTask): RecordedTask {
  const { node, goto, subgraph, ...rest } = task;
  return {
    node,
    ...literalValue(rest),
    ...(goto === undefined ? {} : { goto }),
    ...(subgraph === undefined ? {} : { subgraph: subgraph.map(literalStep) }),
  };
}

/** An entry's name from its text: its first words, lower case, letters and digits joined by "-". */
function slug(text: string): string {
  const words = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .slice(0, 4)
    .join('-');
  return words === '' ? 'run' : words.slice(0, 48);
}
