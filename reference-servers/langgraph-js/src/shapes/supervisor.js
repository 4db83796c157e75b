// A supervisor with two workers, in the idiom of LangGraph JS's multi-agent docs: the supervisor
// routes with `Command({ goto })` (its possible targets declared with `ends`), each worker calls its
// own chat model and hands back with `Command({ goto: 'supervisor', update })`. There are no edges
// between the nodes, only from START to the supervisor.
//
// The supervisor is a plain function (no model): after a human message it sends the researcher,
// then the writer, then ends, counting the AI messages since the last human one. So one run is
// supervisor → researcher → supervisor → writer → supervisor, and the supervisor writes nothing.
import { Command, END, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { scriptedModel } from './model.js';

const State = new StateSchema({ messages: MessagesValue });

const researcherModel = scriptedModel('supervisor.researcher', [{ text: 'Notes on "{{input}}": tides, salt, gulls.' }]);
const writerModel = scriptedModel('supervisor.writer', [{ text: 'Salt wind on the tide, gulls write the shore in white.' }]);

/** The AI messages after the last human message: how far the workers got on this request. */
function answersSinceHuman(messages) {
  const lastHuman = messages.findLastIndex((message) => message.getType() === 'human');
  return messages.slice(lastHuman + 1).filter((message) => message.getType() === 'ai').length;
}

function supervisor(state) {
  const goto = ['researcher', 'writer'][answersSinceHuman(state.messages)] ?? END;
  return new Command({ goto });
}

async function researcher(state) {
  const response = await researcherModel.invoke(state.messages);
  return new Command({ goto: 'supervisor', update: { messages: [response] } });
}

async function writer(state) {
  const response = await writerModel.invoke(state.messages);
  return new Command({ goto: 'supervisor', update: { messages: [response] } });
}

export const graph = new StateGraph(State)
  .addNode('supervisor', supervisor, { ends: ['researcher', 'writer', END] })
  .addNode('researcher', researcher, { ends: ['supervisor'] })
  .addNode('writer', writer, { ends: ['supervisor'] })
  .addEdge(START, 'supervisor')
  .compile();
