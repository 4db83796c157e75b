// What a node does when it runs, as the runner executes it: a task plan. Both forms of the config
// compile into plans: a step of `runs` (its `do` actions, or the shorthand keys in their fixed
// order), and the ReAct shorthand's nodes (react-agent.ts: the model node's `reply` action, the
// tool node's answers). The runner knows plans only.
import { tasksOfStep } from './graph-problems.js';
import type { Action, MessagePlan, StepConfig, StepPlan, StorePlan, TaskConfig, TaskPlan } from './graph-types.js';

type Values = Record<string, unknown>;

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
