// An app's agent of the most common shape, whose runs change with what each request asks: nodes
// `agent` (a chat model) and `tool` (a plain function answering from the state it is given), and a
// router after `agent` that goes to `tool` while the last AI message calls tools.
//   START → agent → (tool → agent)* → END
// What the state says changes a run, as in apps' own graphs:
// - `ask_first: true`: the agent first asks a human (`interrupt`) and answers with the decision it
//   is resumed with, so the same question resumed with two values ends two ways;
// - `sleep_ms`: the agent works this long before its model answers (a run to cancel, or one that
//   another run meets on its thread);
// - the tool answers each call from the last AI message as the state holds it, so a human who
//   edits that message (a state update as `agent`) changes the tool's answer.
// A run's `recursion_limit` of 2 stops it after the agent's first step (GraphRecursionError).
// The model replies per thread, in turn: a tool call, then the answer.
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { END, interrupt, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod/v4';
import { scriptedModel } from './model.js';

const State = new StateSchema({
  messages: MessagesValue,
  ask_first: z.boolean().optional(),
  sleep_ms: z.number().optional(),
});

const model = scriptedModel(
  'helpdesk.agent',
  [{ text: 'Let me check that.', tool_calls: [{ name: 'lookup', args: { topic: 'orders' }, id: 'call_lookup' }] }, { text: 'All done.' }],
  { delayMs: 5 },
);

async function agent(state, config) {
  if (state.ask_first) {
    const decision = interrupt({ question: 'May I go ahead?' });
    return { ask_first: false, messages: [new AIMessage({ content: `Decision: ${decision}` })] };
  }
  if (state.sleep_ms) await new Promise((resolve) => setTimeout(resolve, state.sleep_ms));
  return { messages: [await model.invoke(state.messages, config)] };
}

function tool(state) {
  const last = state.messages.at(-1);
  return {
    messages: (last?.tool_calls ?? []).map(
      (call) => new ToolMessage({ content: `Checked: ${last.content}`, tool_call_id: call.id, name: call.name }),
    ),
  };
}

const route = (state) => (state.messages.at(-1)?.tool_calls?.length ? 'tool' : END);

export const graph = new StateGraph(State)
  .addNode('agent', agent)
  .addNode('tool', tool)
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', route, ['tool', END])
  .addEdge('tool', 'agent')
  .compile();
