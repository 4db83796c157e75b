// What a run's stream showed, read for what only a stream carries: each model reply's chunks and
// the pause between them, which tool calls ran as tools, each node's custom events, how long each
// task took and where its end came, the Commands nodes returned, and how long a step worked before
// it raised or was interrupted. run-steps.ts places them in the steps it reads from the history.
import type { StreamedEvent } from './traffic.js';

type Values = Record<string, unknown>;

/** What a run's stream showed: each reply's chunks, which tool calls ran as tools, each node's custom events and time. */
export interface StreamTimeline {
  chunksOf(messageId: string): { texts: string[]; delayMs: number } | undefined;
  ranTool(toolCallId: string): boolean;
  customsOf(node: string): { offsetMs: number; value: unknown }[];
  /**
   * How long the node's next task took, as its stream showed it, and where its end came among the
   * stream's task ends (`endedAs`, counting up); ask once per task, in order.
   */
  taskTime(node: string): { ms: number; endedAs: number } | undefined;
  /** Where a node's Command sent the graph, when its stream (events mode) showed it returned one. */
  commandOf(node: string): string[] | undefined;
  /** How long the run's last step worked before it raised or was interrupted: from the event before to the error or interrupt. */
  stoppedAfter(): number | undefined;
}

export function streamTimeline(events: readonly StreamedEvent[]): StreamTimeline | undefined {
  if (events.length === 0) return undefined;
  const chunks = new Map<string, { text: string; at: number }[]>();
  const tools = new Set<string>();
  const starts = new Map<string, number>();
  const commands = new Map<string, string[][]>();
  /** Per node, how long each of its tasks took and where its end came, in turn (a node may run in several supersteps). */
  const durations = new Map<string, { ms: number; endedAs: number }[]>();
  const ends = new Map<string, number>();
  type Custom = { offsetMs: number; value: unknown };
  // Per node, the custom events of each of its tasks in turn (a node may run in several supersteps).
  const batches = new Map<string, Custom[][]>();
  const open = new Map<string, Custom[]>();
  const attribute = (node: string, offsetMs: number, value: unknown) => open.set(node, [...(open.get(node) ?? []), { offsetMs, value }]);
  // A custom event belongs to the task running (the tasks mode says which), else to the next task that ends.
  let running: string | undefined;
  let pending: { at: number; value: unknown }[] = [];
  let lastMarker = 0;
  /** When the current superstep began, as the stream shows it: the state or checkpoint before it. */
  let stepStart = 0;
  let stoppedAfter: number | undefined;
  /** Task ends seen so far: a task's place among them is the order the upstream finished them in. */
  let endings = 0;
  const ended = (node: string, at: number) => {
    ends.set(node, at);
    // Without the tasks mode, a task started when its superstep did.
    const start = starts.get(node);
    const began = start === undefined || start < stepStart ? stepStart : start;
    durations.set(node, [...(durations.get(node) ?? []), { ms: at - began, endedAs: endings++ }]);
    starts.delete(node);
    for (const custom of pending) attribute(node, custom.at - (starts.get(node) ?? lastMarker), custom.value);
    pending = [];
    batches.set(node, [...(batches.get(node) ?? []), open.get(node) ?? []]);
    open.delete(node);
    if (running === node) running = undefined;
  };
  for (const event of events) {
    const name = event.event.split('|')[0]!;
    const data = event.data as Values | Values[] | undefined;
    const object = data && !Array.isArray(data) ? data : undefined;
    if (name === 'messages' && Array.isArray(data)) {
      const chunk = data[0] as Values;
      const metadata = data[1] as Values | undefined;
      if (typeof chunk?.id === 'string' && typeof chunk.content === 'string' && metadata?.ls_integration === 'langchain_chat_model')
        chunks.set(chunk.id, [...(chunks.get(chunk.id) ?? []), { text: chunk.content, at: event.at }]);
    } else if (name === 'tools' && object?.event === 'on_tool_start' && typeof object.toolCallId === 'string') {
      tools.add(object.toolCallId);
    } else if (name === 'events' && object?.event === 'on_tool_start') {
      const callId =
        (object.metadata as Values | undefined)?.tool_call_id ?? ((object.data as Values | undefined)?.tool_call_id as string | undefined);
      if (typeof callId === 'string') tools.add(callId);
    } else if (name === 'events' && object?.event === 'on_chain_end' && typeof object.name === 'string') {
      const output = (object.data as Values | undefined)?.output as Values | undefined;
      if (output?.lg_name === 'Command')
        commands.set(object.name, [...(commands.get(object.name) ?? []), [output.goto ?? []].flat() as string[]]);
    } else if (name === 'tasks' && typeof object?.name === 'string') {
      if (Object.hasOwn(object, 'input')) {
        starts.set(object.name, event.at);
        running = object.name;
      } else ended(object.name, event.at);
    } else if (name === 'updates' && object) {
      for (const node of Object.keys(object)) if (node !== '__interrupt__') ended(node, event.at);
      if (!Object.hasOwn(object, '__interrupt__')) lastMarker = event.at;
    } else if (name === 'custom') {
      if (running) attribute(running, event.at - (starts.get(running) ?? lastMarker), event.data);
      else pending.push({ at: event.at, value: event.data });
    } else if (name === 'error' || (name === 'values' && object && Object.hasOwn(object, '__interrupt__'))) {
      stoppedAfter ??= event.at - lastMarker;
    } else if (name === 'metadata' || name === 'values' || name === 'checkpoints') {
      lastMarker = event.at;
      stepStart = event.at;
    }
  }
  // Custom events no task's end followed: the first task that asks has them.
  let unplaced = pending.map((custom) => ({ offsetMs: custom.at - lastMarker, value: custom.value }));
  return {
    chunksOf(messageId) {
      const seen = chunks.get(messageId);
      if (!seen || seen.length === 0) return undefined;
      const gaps = seen.slice(1).map((chunk, i) => chunk.at - seen[i]!.at);
      const delayMs = gaps.length === 0 ? 0 : Math.round(gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length);
      return { texts: seen.map((chunk) => chunk.text), delayMs };
    },
    ranTool: (toolCallId) => tools.has(toolCallId),
    customsOf(node) {
      const found = [...(batches.get(node)?.shift() ?? []), ...unplaced];
      unplaced = [];
      return found;
    },
    commandOf: (node) => commands.get(node)?.shift(),
    stoppedAfter: () => stoppedAfter,
    taskTime: (node) => durations.get(node)?.shift(),
  };
}
