// Custom stream events: a node reports its progress with `config.writer` (the `custom` stream
// mode) while it works, then writes its state; a model node answers after it.
//   START → work → respond → END
// `work` writes three `{ type: 'progress', step, total, label }` objects 50 ms apart, then the
// string 'work done' (a writer takes any value), then returns `{ processed }`.
import { END, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod/v4';
import { scriptedModel } from './model.js';

const State = new StateSchema({ messages: MessagesValue, processed: z.number().optional() });

const STEPS = ['fetching', 'parsing', 'indexing'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const respondModel = scriptedModel('custom_events.respond', [{ text: 'Processed all three steps.' }]);

async function work(_state, config) {
  for (const [i, label] of STEPS.entries()) {
    config.writer?.({ type: 'progress', step: i + 1, total: STEPS.length, label });
    await sleep(50);
  }
  config.writer?.('work done');
  return { processed: STEPS.length };
}

async function respond(state) {
  return { messages: [await respondModel.invoke(state.messages)] };
}

export const graph = new StateGraph(State)
  .addNode('work', work)
  .addNode('respond', respond)
  .addEdge(START, 'work')
  .addEdge('work', 'respond')
  .addEdge('respond', END)
  .compile();
