// The smallest graph that writes what real agent threads hold: an `agent` node that answers with a
// tool call and then with text, and a `tools` node that answers the call with a `tool` message.
// No model: the differential tests write state through supersteps and updateState, never by runs;
// the graph gives the server its node names, its state channels (`messages` with LangGraph's
// reducer, and `topic`) and its edges, from which it computes `next`.
import { AIMessage, isAIMessage, isToolMessage, ToolMessage } from '@langchain/core/messages';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  topic: Annotation(),
});

const lastMessage = (state) => state.messages.at(-1);

function agent(state) {
  const last = lastMessage(state);
  if (last && isToolMessage(last)) return { messages: [new AIMessage({ content: 'It is sunny.' })] };
  const call = { id: 'call-1', name: 'get_weather', args: { city: 'Paris' }, type: 'tool_call' };
  return { messages: [new AIMessage({ content: '', tool_calls: [call] })] };
}

function tools(state) {
  const last = lastMessage(state);
  const calls = last && isAIMessage(last) ? (last.tool_calls ?? []) : [];
  return { messages: calls.map((call) => new ToolMessage({ content: 'sunny', tool_call_id: call.id, name: call.name })) };
}

function route(state) {
  const last = lastMessage(state);
  return last && isAIMessage(last) && last.tool_calls?.length ? 'tools' : END;
}

export const graph = new StateGraph(State)
  .addNode('agent', agent)
  .addNode('tools', tools)
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', route, ['tools', END])
  .addEdge('tools', 'agent')
  .compile();
