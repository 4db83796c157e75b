// The shape of the ReAct shorthand (`replies`): LangGraph's prebuilt ReAct agent. `__start__`
// leads to the node `agent` (the chat model); `agent` leads to `tools` when its reply calls tools
// and to `__end__` otherwise; `tools` answers the calls and leads back to `agent`. Its nodes
// compile into task plans: `agent` makes the model call whose reply the thread's cursor chooses,
// `tools` answers the calls with the graph's `tools`, as LangGraph's ToolNode (tool events and all).
import type { Message } from '@agentplane/agent-server';
import { END, GraphShape, START } from './graph-shape.js';
import type { TaskPlan } from './graph-types.js';

type Values = Record<string, unknown>;

export const AGENT = 'agent';
export const TOOLS = 'tools';

/** The nodes and edges in the order LangGraph's drawing of the prebuilt lists them. */
export const REACT_AGENT_SHAPE = new GraphShape(
  [AGENT, TOOLS],
  [
    { source: START, target: AGENT, conditional: false },
    { source: TOOLS, target: AGENT, conditional: false },
    { source: AGENT, target: TOOLS, conditional: true },
    { source: AGENT, target: END, conditional: true },
  ],
);

type ToolCall = NonNullable<Extract<Message, { type: 'ai' }>['tool_calls']>[number];

/** The AI message whose tool calls a tool node answers: the last message, when it calls tools. */
export function pendingToolCalls(values: Values): ToolCall[] {
  const messages = values.messages;
  const last = Array.isArray(messages) ? (messages.at(-1) as Values | undefined) : undefined;
  if (last?.type !== 'ai' || !Array.isArray(last.tool_calls)) return [];
  return last.tool_calls as ToolCall[];
}

/**
 * The nodes that run after `node` wrote and left `values`, as the prebuilt's edges decide them:
 * `__start__` → agent; agent → tools while the last message calls tools, else the end; tools →
 * agent. A node the graph does not have leads nowhere.
 */
export function reactNextAfter(node: string, values: Values): string[] {
  switch (node) {
    case START:
      return [AGENT];
    case AGENT:
      return pendingToolCalls(values).length > 0 ? [TOOLS] : [];
    case TOOLS:
      return [AGENT];
    default:
      return [];
  }
}

/** What a node of the ReAct shape does, given the graph's tool answers. */
export function reactTaskPlan(node: string, tools: Readonly<Record<string, string>>): TaskPlan | undefined {
  if (node === AGENT) return { node, actions: [{ kind: 'reply' }], toolEvents: true };
  if (node === TOOLS) return { node, actions: [], tools: { byName: tools }, toolEvents: true };
  return undefined;
}
