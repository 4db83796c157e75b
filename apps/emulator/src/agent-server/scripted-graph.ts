// Scripted graphs: the `graphs` of the emulator config, the behaviour of each graph's nodes with
// no graph code and no model. Node `agent` is a chat model whose replies are a list; node `tools`
// answers each tool call with a fixed text. The graph's shape is react-agent.ts.
//
// Reply choice is deterministic: each thread keeps a cursor; a model call takes the first entry at
// or after the cursor (wrapping around) whose `match` matches the text of the last human message,
// and moves the cursor past it. An entry that interrupts moves it only once it is resumed and
// replies; an entry that raises moves it at once, so a thread is never stuck on an error. Nothing
// moves a cursor back.
import type { GraphConfig } from '../config.js';
import { GraphIdSchema } from '../generated/agent-server/contract.js';
import { api } from '../generated/agent-server/operations.js';
import { globToRegExp } from '../shared/glob.js';

type Values = Record<string, unknown>;

/** A reply as the config gives it. */
export type ReplyEntry = GraphConfig['replies'][number];

/** What a reply function is told about the model call it answers. */
export interface ReplyContext {
  /** The text of the last human message. */
  input: string;
  /** The thread's state as the node sees it. */
  state: Values;
  /** The resume value, when the node is resumed after an interrupt; undefined otherwise. */
  resume: unknown;
}

/**
 * In process (`createEmulator({ graphs })`), a reply may be a function of the call: it answers an
 * entry, or undefined to pass the call to the next entry, as a `match` that does not match would.
 */
export type ReplyFunction = (context: ReplyContext) => ReplyEntry | undefined;

/** A graph as `createEmulator({ graphs })` takes it: the config's shape, where a reply may be a function. */
export type GraphDefinition = Omit<GraphConfig, 'replies'> & { replies: (ReplyEntry | ReplyFunction)[] };

/** With no `graphs` configured: one graph, `agent`, that echoes the last human message. */
export const DEFAULT_GRAPHS: Readonly<Record<string, GraphDefinition>> = { agent: { replies: [{ text: '{{input}}' }] } };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// What a graph ID is, as the spec's GraphId states it.
const GRAPH_ID = new RegExp(GraphIdSchema.pattern, 'u');
/** The last segments of the concrete paths under /assistants/ (`search`, `count`): a graph of that ID could not be named there. */
const ASSISTANT_PATH_WORDS = new Set(
  Object.values(api.operations).flatMap(({ path }) => /^\/assistants\/([^/{}]+)$/.exec(path)?.slice(1) ?? []),
);

/**
 * What the config schema cannot say about `graphs`, one readable line per problem (empty when
 * there is none): graph ids are the spec's GraphId, which fits in a URL and cannot be mistaken for
 * an assistant's UUID or for a path under /assistants/; `messages` is not an extra key; each reply
 * does something; `update` writes declared keys only.
 */
export function graphConfigProblems(graphs: Readonly<Record<string, GraphDefinition>>): string[] {
  const problems: string[] = [];
  for (const [graphId, graph] of Object.entries(graphs)) {
    const at = `graphs.${graphId}`;
    if (UUID.test(graphId)) problems.push(`${at}: a graph id cannot be a UUID (assistant ids are UUIDs, and either names a graph)`);
    else if (ASSISTANT_PATH_WORDS.has(graphId))
      problems.push(
        `${at}: a graph id cannot be ${graphId} (/assistants/${graphId} is another operation, so its default assistant could not be named)`,
      );
    else if (!GRAPH_ID.test(graphId) || graphId.length > GraphIdSchema.maxLength)
      problems.push(
        `${at}: a graph id is ${GraphIdSchema.minLength} to ${GraphIdSchema.maxLength} letters, digits, "_", "-" or "." (not starting with "-" or ".")`,
      );
    const state = graph.state ?? {};
    if (Object.hasOwn(state, 'messages')) problems.push(`${at}.state.messages: messages is always in the state (default []); remove it`);
    graph.replies.forEach((reply, index) => {
      if (typeof reply === 'function') return;
      for (const problem of replyProblems(reply, state)) problems.push(`${at}.replies[${index}]: ${problem}`);
    });
  }
  return problems;
}

/** What is wrong with one reply entry (the schema checked its fields' types already). */
export function replyProblems(reply: ReplyEntry, state: Values): string[] {
  const problems: string[] = [];
  const does = ['text', 'tool_calls', 'interrupt', 'error'].filter((key) => Object.hasOwn(reply, key));
  if (does.length === 0) problems.push('a reply needs text, tool_calls, interrupt or error');
  if (reply.error !== undefined && does.length > 1)
    problems.push(`error cannot be combined with ${does.filter((key) => key !== 'error').join(', ')}: a reply that raises says nothing`);
  if (reply.error !== undefined && reply.update !== undefined)
    problems.push('error cannot be combined with update: a node that raises writes nothing');
  for (const key of Object.keys(reply.update ?? {})) {
    if (key === 'messages') problems.push('update.messages: the reply is the message the node writes; update writes the other keys');
    else if (!Object.hasOwn(state, key)) problems.push(`update.${key}: not a key of this graph's state (declare it under state)`);
  }
  return problems;
}

/** How a reply's text is cut into message chunks, and the pause before each. */
export interface Streaming {
  chunk: 'word' | 'char' | 'whole';
  delayMs: number;
}

/** A model call's choice: which entry answered, the entry, and where the cursor goes once it completes. */
export interface ReplyChoice {
  index: number;
  entry: ReplyEntry;
  nextCursor: number;
}

/** One configured graph, ready to run. */
export class ScriptedGraph {
  /** Every state key with its default: `messages` ([]) and the declared ones. */
  readonly defaults: Readonly<Values>;
  readonly streaming: Streaming;
  private readonly replies: readonly { match: RegExp | undefined; reply: ReplyEntry | ReplyFunction }[];
  private readonly tools: Readonly<Record<string, string>>;

  constructor(
    readonly id: string,
    definition: GraphDefinition,
  ) {
    this.defaults = { messages: [], ...(definition.state ?? {}) };
    this.streaming = { chunk: definition.stream?.chunk ?? 'word', delayMs: definition.stream?.delay_ms ?? 0 };
    this.replies = definition.replies.map((reply) => ({
      match: typeof reply !== 'function' && reply.match !== undefined ? globToRegExp(reply.match) : undefined,
      reply,
    }));
    this.tools = definition.tools ?? {};
  }

  /** The state keys a run's input, an update or a reply may write, `messages` first. */
  get stateKeys(): string[] {
    return Object.keys(this.defaults);
  }

  /**
   * The reply of a model call at `cursor`: the first entry at or after it, wrapping around, that
   * matches; undefined when none does. A reply function's answer is checked like a config entry;
   * a bad one throws, and the run fails with that message.
   */
  chooseReply(cursor: number, context: ReplyContext): ReplyChoice | undefined {
    const count = this.replies.length;
    for (let offset = 0; offset < count; offset++) {
      const index = (cursor + offset) % count;
      const { match, reply } = this.replies[index]!;
      let entry: ReplyEntry | undefined;
      if (typeof reply === 'function') {
        entry = reply(context);
        if (entry === undefined) continue;
        const problems = replyProblems(entry, this.defaults as Values);
        if (problems.length > 0)
          throw new Error(`reply function ${index} of graph ${this.id} answered an invalid reply: ${problems.join('; ')}`);
      } else {
        if (match && !match.test(context.input)) continue;
        entry = reply;
      }
      return { index, entry, nextCursor: (index + 1) % count };
    }
    return undefined;
  }

  /** The content of the ToolMessage answering a call of `tool`. */
  toolAnswer(tool: string): string {
    return Object.hasOwn(this.tools, tool) ? this.tools[tool]! : 'ok';
  }
}

/** A reply's text with `{{input}}` and `{{resume}}` filled in (a resume value that is not a string as JSON). */
export function renderReplyText(text: string, context: Pick<ReplyContext, 'input' | 'resume'>): string {
  return text.replace(/\{\{(input|resume)\}\}/g, (_, name: 'input' | 'resume') => {
    if (name === 'input') return context.input;
    const resume = context.resume;
    return typeof resume === 'string' ? resume : resume === undefined ? '' : JSON.stringify(resume);
  });
}

/** The text of a message's content: the string, or its text blocks joined. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      typeof block === 'string' ? block : block && typeof block === 'object' && typeof block.text === 'string' ? block.text : '',
    )
    .join('');
}

/** The graphs of an emulator by graph_id: the configured ones, or the default echo graph. */
export class GraphRegistry {
  private readonly graphs: ReadonlyMap<string, ScriptedGraph>;

  constructor(definitions: Readonly<Record<string, GraphDefinition>> | undefined) {
    const chosen = definitions && Object.keys(definitions).length > 0 ? definitions : DEFAULT_GRAPHS;
    this.graphs = new Map(Object.entries(chosen).map(([id, definition]) => [id, new ScriptedGraph(id, definition)]));
  }

  get(graphId: string): ScriptedGraph | undefined {
    return this.graphs.get(graphId);
  }

  /** Every graph id, in the order the config lists them. */
  ids(): string[] {
    return [...this.graphs.keys()];
  }
}
