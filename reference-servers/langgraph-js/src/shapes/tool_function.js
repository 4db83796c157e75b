// The agent/tool shape of the LangGraph JS server's own test graphs (libs/langgraph-api/tests/
// graphs/agent.mts): nodes `agent` and `tool`, where `tool` is a plain function returning
// ToolMessages (not the prebuilt ToolNode, so no tool runs and `events` mode has no
// on_tool_start/on_tool_end), and the conditional edge out of `agent` has no path map.
//   START → agent → (tool → agent)* → END
// The agent's model asks for two lookups at once when asked about orders; the tool's answer
// depends on each call's arguments (the order's status, or "not found").
import { ToolMessage } from '@langchain/core/messages';
import { END, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { scriptedModel } from './model.js';

const State = new StateSchema({ messages: MessagesValue });

const ORDERS = { 4512: 'shipped on Monday', 7781: 'waiting for stock' };

const agentModel = scriptedModel('tool_function.agent', [
  {
    match: '*orders*',
    text: 'Let me look both up.',
    tool_calls: [
      { name: 'lookup_order', args: { order_id: '4512' }, id: 'call_lookup_4512' },
      { name: 'lookup_order', args: { order_id: '7781' }, id: 'call_lookup_7781' },
    ],
  },
  { match: '*orders*', text: 'Order 4512 has shipped; order 7781 is waiting for stock.' },
  { text: 'I can look up orders for you.' },
]);

async function agent(state) {
  return { messages: [await agentModel.invoke(state.messages)] };
}

function lookupOrder({ order_id }) {
  const status = ORDERS[order_id];
  return status ? `Order ${order_id}: ${status}` : `Order ${order_id}: not found`;
}

function tool(state) {
  const calls = state.messages.at(-1)?.tool_calls ?? [];
  return {
    messages: calls.map((call) => new ToolMessage({ content: lookupOrder(call.args), tool_call_id: call.id, name: call.name })),
  };
}

const route = (state) => (state.messages.at(-1)?.tool_calls?.length ? 'tool' : END);

export const graph = new StateGraph(State)
  .addNode('agent', agent)
  .addNode('tool', tool)
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', route)
  .addEdge('tool', 'agent')
  .compile();
