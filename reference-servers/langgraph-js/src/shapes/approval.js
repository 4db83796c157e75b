// A tool that asks a human before it acts, in the prebuilt ToolNode of the root graph: the shape of
// human-in-the-loop tools (CopilotKit's and the AG-UI adapter's approvals among them).
//   START → agent → (tools → agent)* → END
// The agent's model asks for `refund`; the tool calls `interrupt({ question, order_id })`, which
// pauses the run inside the tools node. Resumed with `Command({ resume: <decision> })`, the tool
// runs again from its start and answers with the decision; the agent then ends the conversation.
// What this shape shows: the ID a resumed root tool's answer has in the thread, in the
// messages modes and in the events mode's on_tool_end.
import { tool } from '@langchain/core/tools';
import { END, interrupt, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod/v4';
import { scriptedModel } from './model.js';

const State = new StateSchema({ messages: MessagesValue });

const model = scriptedModel('approval.agent', [
  { match: '*refund*', text: 'I will ask for approval.', tool_calls: [{ name: 'refund', args: { order_id: '4512' }, id: 'call_refund' }] },
  { text: 'The refund request is settled.' },
]);

const refund = tool(
  ({ order_id }) => {
    const decision = interrupt({ question: 'Approve this refund?', order_id });
    return `Refund of order ${order_id}: ${decision}`;
  },
  { name: 'refund', description: 'Refunds an order once a human approves.', schema: z.object({ order_id: z.string() }) },
);

async function agent(state) {
  return { messages: [await model.invoke(state.messages)] };
}

const route = (state) => (state.messages.at(-1)?.tool_calls?.length ? 'tools' : END);

export const graph = new StateGraph(State)
  .addNode('agent', agent)
  .addNode('tools', new ToolNode([refund]))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', route, ['tools', END])
  .addEdge('tools', 'agent')
  .compile();
