// The shape every scripted graph has: LangGraph's prebuilt ReAct agent. `__start__` leads to the
// node `agent` (the chat model); `agent` leads to `tools` when its reply calls tools and to
// `__end__` otherwise; `tools` answers the calls and leads back to `agent`. Superstep planning
// (which node runs next after an update), the run engine and the assistants' graph endpoint all
// read it from here.
import type { Message } from '@agentplane/agent-server';

type Values = Record<string, unknown>;

export const START = '__start__';
export const END = '__end__';
export const AGENT = 'agent';
export const TOOLS = 'tools';

/** The nodes and the edges between them, each in the order LangGraph's drawing of the graph lists them. */
export const REACT_AGENT_GRAPH = {
  nodes: [START, AGENT, TOOLS, END],
  edges: [
    { source: START, target: AGENT, conditional: false },
    { source: TOOLS, target: AGENT, conditional: false },
    { source: AGENT, target: TOOLS, conditional: true },
    { source: AGENT, target: END, conditional: true },
  ],
} as const;

/** The graph's own nodes: those an update may be applied as, and a run executes. */
export const GRAPH_NODES: readonly string[] = [AGENT, TOOLS];

/** The AI message whose tool calls node `tools` answers: the last message, when it calls tools. */
export function pendingToolCalls(values: Values): NonNullable<Extract<Message, { type: 'ai' }>['tool_calls']> {
  const messages = values.messages;
  const last = Array.isArray(messages) ? (messages.at(-1) as Values | undefined) : undefined;
  if (last?.type !== 'ai' || !Array.isArray(last.tool_calls)) return [];
  return last.tool_calls as NonNullable<Extract<Message, { type: 'ai' }>['tool_calls']>;
}

/**
 * The nodes that run after `node` wrote and left `values`, as LangGraph's edges decide them:
 * `__start__` → agent; agent → tools while the last message calls tools, else the end; tools →
 * agent. A node the graph does not have leads nowhere.
 */
export function nextAfter(node: string, values: Values): string[] {
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
