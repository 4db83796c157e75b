// Parallel branches: one node fans out to two nodes that run in the same superstep, and both fan in
// to a join node:
//   START → plan → (search_web ∥ search_docs) → summarize → END
// Both branches call a chat model (their chunks interleave in the messages modes: search_docs
// pauses longer between words) and append to `results`, a key with a concatenating reducer, so
// the join sees both writes; `summarize` reads them. `results` has a default ([]); `summary` has
// none, so it is absent from `values` until `summarize` writes it.
import { AIMessage } from '@langchain/core/messages';
import { MessagesValue, ReducedValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod/v4';
import { scriptedModel } from './model.js';

const State = new StateSchema({
  messages: MessagesValue,
  results: new ReducedValue(
    z.array(z.string()).default(() => []),
    { reducer: (current, update) => current.concat(update) },
  ),
  summary: z.string().optional(),
});

const webModel = scriptedModel('parallel.search_web', [{ text: 'The web says: tides follow the moon.' }], { delayMs: 20 });
const docsModel = scriptedModel('parallel.search_docs', [{ text: 'The docs say: two tides a day.' }], { delayMs: 35 });

const plan = () => ({ messages: [new AIMessage('Searching the web and the docs at once.')] });

async function searchWeb(state) {
  const response = await webModel.invoke(state.messages);
  return { messages: [response], results: [`web: ${response.text}`] };
}

async function searchDocs(state) {
  const response = await docsModel.invoke(state.messages);
  return { messages: [response], results: [`docs: ${response.text}`] };
}

function summarize(state) {
  const summary = `${state.results.length} sources: ${[...state.results].sort().join(' | ')}`;
  return { summary, messages: [new AIMessage(summary)] };
}

export const graph = new StateGraph(State)
  .addNode('plan', plan)
  .addNode('search_web', searchWeb)
  .addNode('search_docs', searchDocs)
  .addNode('summarize', summarize)
  .addEdge(START, 'plan')
  .addEdge('plan', 'search_web')
  .addEdge('plan', 'search_docs')
  .addEdge('search_web', 'summarize')
  .addEdge('search_docs', 'summarize')
  .compile();
