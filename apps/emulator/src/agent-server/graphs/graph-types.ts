// The graph format's types, in one file that imports none of the files that use them: what a
// config gives (GraphConfig, derived from graph-config.ts's JSON Schema, and the parts of it the
// compile steps read), what `createEmulator({ graphs })` takes (GraphDefinition, where a reply may
// be a function), and the task plans both forms compile into, which the runner executes.
//
// The graphs room runs one way: these types and the schema at the bottom; validation
// (graph-problems.ts) above them; the compile steps (task-plan.ts, replies.ts, run-scripts.ts,
// react-agent.ts) above that; scripted-graph.ts, which assembles a configured graph, on top; the
// runner (runs/) imports from here and never the other way.
import type { FromSchema } from 'json-schema-to-ts';
import type { GRAPH_SCHEMA } from './graph-config.js';

type Values = Record<string, unknown>;

/** A scripted graph as the config file gives it. */
export type GraphConfig = FromSchema<typeof GRAPH_SCHEMA>;

/** A graph as `createEmulator({ graphs })` takes it: the config's shape, where a reply may be a function. */
export type GraphDefinition = Omit<GraphConfig, 'replies'> & { replies?: (ReplyEntry | ReplyFunction)[] };

/** A reply as the config gives it. */
export type ReplyEntry = NonNullable<GraphConfig['replies']>[number];

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

/** A step of `runs` as the config gives it. */
export type StepConfig = NonNullable<GraphConfig['runs']>[number]['steps'][number];
/** A task of a step, as the config gives it. */
export type TaskConfig = Exclude<StepConfig, { parallel: unknown }>;

/** How a reply's text is cut into streamed chunks. */
export type Chunking = 'word' | 'char' | 'whole';

/** A chat model call: the reply streamed in chunks, then written to `messages` by the node. */
export interface MessagePlan {
  /** A template ({{input}}, {{resume}}). */
  text: string;
  toolCalls: { name: string; args?: Record<string, unknown>; id?: string }[];
  /** How the text is cut (default: the graph's), or the chunks exactly. */
  chunk?: Chunking | undefined;
  chunks?: string[] | undefined;
  /** The pause before each chunk (default: the graph's). */
  delayMs?: number | undefined;
  name?: string | undefined;
}

/** One thing a node does before it returns. */
export type Action =
  | { kind: 'delay'; ms: number }
  | { kind: 'custom'; value: unknown }
  | { kind: 'message'; message: MessagePlan }
  | { kind: 'interrupt'; value: unknown }
  /** The ReAct shorthand's model call: its reply is chosen from `replies` when the call is made. */
  | { kind: 'reply' };

/** Answers to the tool calls of the last AI message: by tool name (templates), or one per call in order. */
export type ToolAnswers = { byName: Readonly<Record<string, string>> } | { inOrder: readonly string[] };

export interface TaskPlan {
  node: string;
  actions: Action[];
  /** What the node returns (templates in its strings). */
  update?: Values | undefined;
  /** The node returns a Command going there: no router runs after it. */
  goto?: string[] | undefined;
  /** The node answers the pending tool calls. */
  tools?: ToolAnswers | undefined;
  /** Whether those calls run as tools (tool events in the tools and events modes). */
  toolEvents: boolean;
  /** The node raises this after its actions. */
  error?: { name: string; message: string } | undefined;
  /** The node is a subgraph running these supersteps in its own namespace. */
  subgraph?: StepPlan[] | undefined;
  /** What it reads from the store first (each named for its templates), and writes to it and deletes as it returns. */
  store?: StorePlan | undefined;
}

/** A step's use of the store: namespaces, keys and values are templates. */
export interface StorePlan {
  get: { namespace: string[]; key: string; as: string }[];
  put: { namespace: string[]; key: string; value: Values; ttl?: number | undefined }[];
  delete: { namespace: string[]; key: string }[];
}

/** One superstep: the tasks that run in it, in the order LangGraph prepares them. */
export type StepPlan = TaskPlan[];
