// Runs one task: a node's plan (graphs/task-plan.ts) in the order it gives, telling the stream
// modes each thing as it happens: its pauses, custom events, chat model calls (the reply cut in
// chunks, each streamed), interrupts, the answers to pending tool calls, its writes, or its error.
// What a task does to the thread (checkpoints, results on tasks) is the graph runner's; a task only
// computes what the node returns.
//
// Messages a node returns without an ID get one here: LangGraph's stream handler names those it
// streams (`run-<node run id>`, a tool's answer `run-<node run id>-tool-<call id>`) when a messages
// mode is streamed, and the messages reducer gives the others a UUID. The task's result, as
// LangGraph's pending writes keep it, has them without the ID.
import { newId, newRunId } from '../../shared/ids.js';
import { freshlyNamedMessage, nameFreshly } from '../graphs/channels.js';
import type { MessagePlan, TaskPlan } from '../graphs/graph-types.js';
import { pendingToolCalls } from '../graphs/react-agent.js';
import type { ScriptedGraph, Streaming } from '../graphs/scripted-graph.js';
import { errorOf } from '../graphs/task-plan.js';
import type { TemplateContext } from '../graphs/templates.js';
import { lastHumanText, renderText, renderValue } from '../graphs/templates.js';
import type { NodeCall, StreamModes } from './stream-modes.js';

type Values = Record<string, unknown>;

/** A node raised (a scripted `error`, no reply matching, too many steps): the run fails with it. */
export class NodeError extends Error {
  constructor(
    readonly kind: string,
    message: string,
    /** Whether a node raised it (its task records the error); not for an error of the loop itself. */
    readonly ofNode = true,
    /** Where the thread's reply cursor goes all the same (a scripted reply that raises moves it). */
    readonly cursor?: number,
  ) {
    super(message);
  }
}

/** A node paused at an interrupt: the value it waits with. */
export class TaskInterrupt {
  constructor(readonly value: unknown) {}
}

/** What a task returned. */
export interface TaskResult {
  /** Its writes, as the state and the stream see them (the messages with their IDs). */
  written: Values;
  /**
   * Its writes as its task records them: the messages it made without an ID have none, unless
   * the stream handler named them as they were streamed; a node that only routed (a Command) null.
   */
  recorded: Values | null;
  /** What the node returned, as the `events` mode shows it: its writes, or a Command. */
  output: unknown;
  /** Where the thread's reply cursor goes once the step is committed (the ReAct shorthand's model call). */
  cursor?: number | undefined;
  /** What it writes to the store, done when its step is committed. */
  storeWrites?: (() => void) | undefined;
}

/** The store as a task reads and writes it (the deployment's long-term memory: store-items/item-store.ts). */
export interface TaskStore {
  get(namespace: string[], key: string): unknown;
  put(namespace: string[], key: string, value: Record<string, unknown>, ttl?: number): void;
  delete(namespace: string[], key: string): void;
}

/** What a task runs with. */
export interface TaskContext {
  graph: ScriptedGraph;
  modes: StreamModes;
  call: NodeCall;
  /** The state the node reads. */
  state: Values;
  /** The resume values of the interrupts it passed before, in order. */
  resumes: readonly unknown[];
  /** The thread's reply cursor (the ReAct shorthand's model). */
  replyCursor: () => number;
  /** Waits `ms` (scaled), or rejects once the run is cancelled. */
  pause: (ms: number) => Promise<void>;
  /** How long a pause of `ms` lasts in this run (its time scale applied). */
  scaled: (ms: number) => number;
  /** Runs the node's subgraph, when it is one: what the node then writes, and the subgraph's whole output. */
  runSubgraph: (plan: TaskPlan) => Promise<{ written: Values; output: Values }>;
  nowIso: () => string;
  /** The store, for a step that reads or writes it. */
  store: TaskStore;
}

export async function runTask(plan: TaskPlan, context: TaskContext): Promise<TaskResult> {
  const { modes, call, state } = context;
  const written: Values = {};
  const made: Values[] = [];
  /** The answers of tool calls run as tools (ToolNode's), which the stream handler names as its own. */
  const toolAnswers = new Set<Values>();
  const addMessages = (messages: Values[]) => {
    written.messages = [...((written.messages as Values[] | undefined) ?? []), ...messages];
  };
  const template: TemplateContext = { input: lastHumanText(state), state };
  // The items the node reads come first, so that every template of the node can read them.
  if (plan.store?.get.length) {
    template.store = {};
    for (const read of plan.store.get)
      template.store[read.as] = context.store.get(renderLabels(read.namespace, template), renderText(read.key, template)) ?? null;
  }
  let passed = 0;
  let cursor: number | undefined;
  for (const action of plan.actions) {
    switch (action.kind) {
      case 'delay':
        if (context.scaled(action.ms) > 0) await context.pause(action.ms);
        break;
      case 'custom':
        modes.customWritten(call, renderValue(action.value, template));
        break;
      case 'interrupt':
        if (passed >= context.resumes.length) throw new TaskInterrupt(renderValue(action.value, template));
        template.resume = context.resumes[passed++];
        break;
      case 'message':
        addMessages([await modelCall(action.message, template, context)]);
        break;
      case 'reply': {
        const reply = await replyCall(context);
        addMessages([reply.message]);
        Object.assign(written, reply.update);
        cursor = reply.cursor;
        break;
      }
    }
  }
  let subgraphOutput: Values | undefined;
  if (plan.subgraph) {
    const ran = await context.runSubgraph(plan);
    Object.assign(written, ran.written);
    subgraphOutput = ran.output;
  }
  if (plan.tools) {
    const answers = answerToolCalls(plan, context, template);
    made.push(...answers);
    if (plan.toolEvents) for (const answer of answers) toolAnswers.add(answer);
    addMessages(answers);
  }
  if (plan.update) {
    const update = renderValue(plan.update, template) as Values;
    for (const [key, value] of Object.entries(update)) {
      if (key !== 'messages') written[key] = value;
      else {
        const messages = (Array.isArray(value) ? value : [value]) as Values[];
        // Only message objects get an ID: a bare string (which the messages reducer makes a human message) has none to take.
        made.push(...messages.filter((message) => message !== null && typeof message === 'object' && message.id === undefined));
        addMessages(messages);
      }
    }
  }
  if (plan.error) throw new NodeError(plan.error.name, renderText(plan.error.message, template));
  const naming = namedByStreamHandler(context);
  const named = (message: Values) => (toolAnswers.has(message) ? naming.toolAnswersInThread : naming.inThread);
  nameMessages(made, call, named);
  const recorded =
    plan.goto && Object.keys(written).length === 0
      ? null
      : withoutMadeIds(
          written,
          made.filter((message) => !named(message)),
        );
  // Messages a node returns whole (not a model's, which streamed in chunks) are streamed as it ends.
  const whole = made.filter((message) => typeof message.type === 'string' || typeof message.role === 'string');
  modes.nodeMessages(call, whole);
  const output = plan.goto
    ? { lg_name: 'Command', ...(Object.keys(written).length > 0 ? { update: written } : {}), goto: plan.goto }
    : (subgraphOutput ?? written);
  return { written, recorded, output, cursor, storeWrites: storeWritesOf(plan, template, context.store) };
}

/** A step's writes to the store, rendered now and done when its step is committed. */
function storeWritesOf(plan: TaskPlan, template: TemplateContext, store: TaskStore): (() => void) | undefined {
  const { put = [], delete: deleted = [] } = plan.store ?? {};
  if (put.length === 0 && deleted.length === 0) return undefined;
  const puts = put.map((item) => ({
    namespace: renderLabels(item.namespace, template),
    key: renderText(item.key, template),
    value: renderValue(item.value, template) as Values,
    ttl: item.ttl,
  }));
  const deletes = deleted.map((item) => ({ namespace: renderLabels(item.namespace, template), key: renderText(item.key, template) }));
  return () => {
    for (const item of puts) store.put(item.namespace, item.key, item.value, item.ttl);
    for (const item of deletes) store.delete(item.namespace, item.key);
  };
}

/** A namespace's labels, rendered; one the store would refuse (empty, or with a period) fails the node, as LangGraph's store raises. */
function renderLabels(labels: readonly string[], template: TemplateContext): string[] {
  return labels.map((label) => {
    const rendered = renderText(label, template);
    if (rendered === '' || rendered.includes('.'))
      throw new NodeError('InvalidNamespaceError', `Namespace labels cannot be empty or contain periods. Got ${JSON.stringify(rendered)}`);
    return rendered;
  });
}

/** A chat model call of a plan: its reply, streamed in chunks, as the message the node writes. */
async function modelCall(plan: MessagePlan, template: TemplateContext, context: TaskContext): Promise<Values> {
  const { modes, call, state, graph } = context;
  const modelRunId = newRunId();
  modes.modelStarted(call, modelRunId, state);
  const message = aiMessage(
    modelRunId,
    renderText(plan.text, template),
    plan.toolCalls.map((toolCall) => ({ ...toolCall, args: renderValue(toolCall.args ?? {}, template) as Values })),
    plan.name,
  );
  const streaming = { chunk: plan.chunk ?? graph.streaming.chunk, delayMs: plan.delayMs ?? graph.streaming.delayMs };
  await streamReply(
    message,
    plan.chunks?.map((text) => renderText(text, template)),
    streaming,
    context,
  );
  modes.modelEnded(call, modelRunId, message, state);
  return message;
}

/**
 * The ReAct shorthand's model call: the reply at the thread's cursor, chosen when the call is
 * made. An entry that raises moves the cursor at once; one that interrupts waits for its resume,
 * then replies; one that replies moves the cursor once its step is committed.
 */
async function replyCall(context: TaskContext): Promise<{ message: Values; update: Values; cursor: number }> {
  const { modes, call, state, graph } = context;
  const input = lastHumanText(state);
  const resumed = context.resumes.length > 0;
  const resume = resumed ? context.resumes[0] : undefined;
  // The model call's run ID, which names its reply (`run-<id>`), as LangChain's callbacks do.
  const modelRunId = newRunId();
  modes.modelStarted(call, modelRunId, state);
  const choice = graph.replies!.choose(context.replyCursor(), { input, state, resume });
  if (!choice)
    throw new NodeError('Error', `No scripted reply of graph "${graph.id}" matches the last human message ${JSON.stringify(input)}`);
  const { entry, nextCursor } = choice;
  if (entry.error !== undefined) {
    const error = errorOf(entry.error);
    throw new NodeError(error.name, error.message, true, nextCursor);
  }
  if (entry.interrupt !== undefined && !resumed) throw new TaskInterrupt(entry.interrupt);
  const message = aiMessage(
    modelRunId,
    renderText(entry.text ?? '', { input, resume, state }),
    (entry.tool_calls ?? []).map((toolCall) => ({ ...toolCall })),
  );
  await streamReply(message, undefined, graph.streaming, context);
  modes.modelEnded(call, modelRunId, message, state);
  return { message, update: (entry.update as Values | undefined) ?? {}, cursor: nextCursor };
}

/**
 * The AI message a model call writes. LangGraph's server calls models with streaming callbacks, so
 * the message it stores is the concatenated stream (`AIMessageChunk`): its ID is `run-` and the
 * model call's run ID, and it keeps the tool calls' `tool_call_chunks`, whether the run was
 * streamed or not.
 */
function aiMessage(modelRunId: string, text: string, toolCalls: { name: string; args?: Values; id?: string }[], name?: string): Values {
  const calls = toolCalls.map((toolCall) => ({
    name: toolCall.name,
    args: toolCall.args ?? {},
    id: toolCall.id ?? newId(),
    type: 'tool_call',
  }));
  // The model call's run ID is new: no list holds this ID yet.
  return freshlyNamedMessage({
    type: 'ai',
    id: `run-${modelRunId}`,
    content: text,
    ...(name === undefined ? {} : { name }),
    tool_call_chunks: calls.map((toolCall, index) => ({
      name: toolCall.name,
      args: JSON.stringify(toolCall.args),
      id: toolCall.id,
      index,
      type: 'tool_call_chunk',
    })),
    tool_calls: calls,
    invalid_tool_calls: [],
    additional_kwargs: {},
    response_metadata: {},
  });
}

/**
 * A reply's text in chunks, each streamed to whoever reads them, with the pause before each (a
 * cancelled run stops there). The last chunk carries the tool calls, as a chat model's stream ends
 * with them.
 */
async function streamReply(message: Values, exactly: string[] | undefined, streaming: Streaming, context: TaskContext): Promise<void> {
  const { chunk } = streaming;
  // A pause scaled to nothing is no pause: the run stays in the turn that runs it (E16).
  const delayMs = context.scaled(streaming.delayMs) > 0 ? streaming.delayMs : 0;
  if (delayMs === 0 && !context.modes.wantsChunks) return;
  const texts = exactly ? [...exactly] : chunksOf(message.content as string, chunk);
  if (texts.length === 0) texts.push('');
  for (const [i, text] of texts.entries()) {
    if (delayMs > 0) await context.pause(delayMs);
    const last = i === texts.length - 1;
    context.modes.modelChunk(context.call, {
      content: text,
      tool_calls: last ? message.tool_calls : [],
      invalid_tool_calls: [],
      tool_call_chunks: last ? message.tool_call_chunks : [],
      additional_kwargs: {},
      response_metadata: {},
      id: message.id,
      type: 'ai',
      ...(message.name === undefined ? {} : { name: message.name }),
    });
  }
}

/** How a reply's text is cut for streaming: words (each with the space before it), characters, or whole. */
export function chunksOf(text: string, chunk: 'word' | 'char' | 'whole'): string[] {
  if (text === '') return [];
  if (chunk === 'whole') return [text];
  if (chunk === 'char') return [...text];
  return text.match(/\s*\S+|\s+$/g) ?? [text];
}

/**
 * The ToolMessages answering the tool calls of the state's last AI message, as LangChain writes
 * them; run as tools (with their events), unless the node answers them as a plain function.
 */
function answerToolCalls(plan: TaskPlan, context: TaskContext, template: TemplateContext): Values[] {
  const calls = pendingToolCalls(context.state);
  const namedInToolEvents = namedByStreamHandler(context).inToolEvents;
  return calls.map((toolCall, index) => {
    const answer =
      plan.tools && 'inOrder' in plan.tools
        ? (plan.tools.inOrder[index] ?? 'ok')
        : Object.hasOwn((plan.tools as { byName: Record<string, string> }).byName, toolCall.name)
          ? (plan.tools as { byName: Record<string, string> }).byName[toolCall.name]!
          : 'ok';
    const message: Values = {
      type: 'tool',
      content: renderText(answer, { ...template, args: toolCall.args as Values }),
      tool_call_id: toolCall.id,
      name: toolCall.name,
      status: 'success',
      additional_kwargs: {},
      response_metadata: {},
    };
    // The tool's output as the tool events show it: the answer before the reducer names it, with
    // the stream handler's name when it gives one (which takes the tool call's ID).
    const named = namedInToolEvents && typeof toolCall.id === 'string';
    if (plan.toolEvents)
      context.modes.toolCalled(
        context.call,
        toolCall,
        named ? { ...message, id: toolMessageName(context.call, toolCall.id!) } : { ...message },
      );
    return message;
  });
}

/**
 * Whether LangGraph's stream handler names the messages a node call returns without an ID
 * (`run-<node run id>`, a tool's answer `run-<node run id>-tool-<call id>`) or leaves them to the
 * messages reducer's UUID, in the places the name shows. The handler names them only while a
 * messages mode is streamed, and before the node's writes are kept; the reducer, after. A task of
 * the graph itself resumed after an interrupt differs, as the LangGraph JS server shows (the
 * reference-shape suite's `approval` and `helpdesk` graphs):
 * - `inThread`: in what the thread keeps, the task records and the messages mode streams. A
 *   resumed root task returns its messages unnamed by the handler: the reducer gives them a UUID.
 * - `toolAnswersInThread`: the same for the answers of tool calls run as tools (ToolNode's). They
 *   are named as the handler names them, resumed or not.
 * - `inToolEvents`: in a tool's on_tool_end output, which the handler names before the event is
 *   sent (the AG-UI LangGraph adapter places the tool's message by that ID); in a resumed root
 *   task the output has no ID.
 */
function namedByStreamHandler({ modes, call, resumes }: TaskContext): {
  inThread: boolean;
  toolAnswersInThread: boolean;
  inToolEvents: boolean;
} {
  if (!modes.namesNodeMessages) return { inThread: false, toolAnswersInThread: false, inToolEvents: false };
  const resumedRoot = call.ns.length === 0 && resumes.length > 0;
  return { inThread: !resumedRoot, toolAnswersInThread: true, inToolEvents: !resumedRoot };
}

/** Gives the messages a node made without an ID theirs: the stream handler's name (those `named` says it names), else a UUID. */
function nameMessages(made: Values[], call: NodeCall, named: (message: Values) => boolean): void {
  for (const message of made) {
    if (message.id !== undefined) continue;
    if (!named(message)) nameFreshly(message, newId());
    else if (message.type === 'tool' && typeof message.tool_call_id === 'string')
      nameFreshly(message, toolMessageName(call, message.tool_call_id));
    else nameFreshly(message, `run-${call.runId}`);
  }
}

/** The name LangGraph's stream handler gives a tool's answer it streams. */
function toolMessageName(call: NodeCall, toolCallId: string): string {
  return `run-${call.runId}-tool-${toolCallId}`;
}

/** The writes as the task records them: the messages it made, without the IDs the reducer gives them afterwards. */
function withoutMadeIds(written: Values, made: readonly Values[]): Values {
  if (made.length === 0 || !Array.isArray(written.messages)) return { ...written };
  const madeSet = new Set(made);
  return {
    ...written,
    messages: (written.messages as Values[]).map((message) => {
      if (!madeSet.has(message)) return message;
      const { id: _id, ...withoutId } = message;
      return withoutId;
    }),
  };
}
