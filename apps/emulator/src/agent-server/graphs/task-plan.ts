// What a node does when it runs, as the runner executes it: a task plan. Both forms of the config
// compile into plans: a step of `runs` (its `do` actions, or the shorthand keys in their fixed
// order), and the ReAct shorthand's nodes (react-agent.ts: the model node's `reply` action, the
// tool node's answers). The runner knows plans only.
import type { GraphConfig } from './scripted-graph.js';

type Values = Record<string, unknown>;

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

/** A step of `runs` as the config gives it. */
export type StepConfig = NonNullable<GraphConfig['runs']>[number]['steps'][number];
type TaskConfig = Exclude<StepConfig, { parallel: unknown }>;

/** A step's tasks: the one task, or its parallel ones. */
export function tasksOfStep(step: StepConfig): TaskConfig[] {
  return 'parallel' in step ? (step.parallel as TaskConfig[]) : [step as TaskConfig];
}

/** A config error as the plan names it: a message is an `Error`. */
export function errorOf(error: string | { name?: string; message: string }): { name: string; message: string } {
  return typeof error === 'string' ? { name: 'Error', message: error } : { name: error.name ?? 'Error', message: error.message };
}

/**
 * A step's tasks in the order LangGraph prepares a superstep's tasks and applies their writes: by
 * node name (their paths' order), whatever order the config lists them in.
 */
export function compileStep(step: StepConfig): StepPlan {
  return tasksOfStep(step)
    .map(compileTask)
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}

/** A task of the config as a plan: `do` as it is, or the shorthand in its order (delay, custom events, interrupt, message). */
export function compileTask(task: TaskConfig): TaskPlan {
  const actions: Action[] = task.do
    ? task.do.map(compileAction)
    : [
        ...(task.delay_ms === undefined ? [] : [{ kind: 'delay', ms: task.delay_ms } as const]),
        ...(task.custom ?? []).map((value): Action => ({ kind: 'custom', value })),
        ...(Object.hasOwn(task, 'interrupt') ? [{ kind: 'interrupt', value: task.interrupt } as const] : []),
        ...(task.message ? [{ kind: 'message', message: messagePlan(task.message) } as const] : []),
      ];
  const tools = task.tools === undefined ? undefined : Array.isArray(task.tools) ? { inOrder: task.tools } : { byName: task.tools };
  return {
    node: task.node,
    actions,
    update: task.update as Values | undefined,
    goto: task.goto === undefined ? undefined : [task.goto].flat(),
    tools,
    toolEvents: task.tool_events ?? true,
    error: task.error === undefined ? undefined : errorOf(task.error),
    subgraph: task.subgraph ? (task.subgraph as StepConfig[]).map(compileStep) : undefined,
    store:
      task.store_get || task.store_put || task.store_delete
        ? {
            get: (task.store_get ?? []) as StorePlan['get'],
            put: (task.store_put ?? []) as StorePlan['put'],
            delete: (task.store_delete ?? []) as StorePlan['delete'],
          }
        : undefined,
  };
}

type ActionConfig = NonNullable<TaskConfig['do']>[number];

function compileAction(action: ActionConfig): Action {
  if (action.delay_ms !== undefined) return { kind: 'delay', ms: action.delay_ms };
  if (action.message !== undefined) return { kind: 'message', message: messagePlan(action.message) };
  if (Object.hasOwn(action, 'interrupt')) return { kind: 'interrupt', value: action.interrupt };
  return { kind: 'custom', value: action.custom };
}

type MessageConfig = NonNullable<TaskConfig['message']>;

function messagePlan(message: MessageConfig): MessagePlan {
  return {
    text: message.text ?? message.chunks?.join('') ?? '',
    toolCalls: (message.tool_calls ?? []) as MessagePlan['toolCalls'],
    chunk: message.chunk,
    chunks: message.chunks,
    delayMs: message.delay_ms,
    name: message.name,
  };
}

/** Every task of a run's steps, subgraphs' included: where it is, and the subgraph node it runs in (none at the top). */
export function* allTasks(
  steps: readonly StepConfig[],
  at: string,
  within?: string,
): Generator<{ task: TaskConfig; at: string; within: string | undefined }> {
  for (const [i, step] of steps.entries()) {
    const tasks = tasksOfStep(step);
    for (const [j, task] of tasks.entries()) {
      const where = 'parallel' in step ? `${at}[${i}].parallel[${j}]` : `${at}[${i}]`;
      yield { task, at: where, within };
      if (task.subgraph) yield* allTasks(task.subgraph as StepConfig[], `${where}.subgraph`, task.node);
    }
  }
}
