// The counting graph of schemas.js with its state declared as an Annotation: the LangGraph JS
// server reads such a schema from the TypeScript types of the module, so this one is TypeScript.
import type { BaseMessage } from '@langchain/core/messages';
import { Annotation, END, messagesStateReducer, START, StateGraph } from '@langchain/langgraph';
import { tally } from './schemas.js';

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  count: Annotation<number>(),
});

export const graph = new StateGraph(State).addNode('tally', tally).addEdge(START, 'tally').addEdge('tally', END).compile();
