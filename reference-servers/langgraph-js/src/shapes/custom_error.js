// An error of the graph's own class, after the failing node has worked a while:
//   START → prepare → call_api → END
// `prepare` writes `attempts`; `call_api` waits `delay_ms` (from the input, else
// `config.configurable.delay_ms`, else 300) and raises a `CustomError` (a class extending Error
// with its own `name`), so the run fails with that name and message after the delay.
import { END, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod/v4';

export class CustomError extends Error {
  constructor(message) {
    super(message);
    this.name = 'CustomError';
  }
}

const State = new StateSchema({ delay_ms: z.number().optional(), attempts: z.number().optional() });

const prepare = (state) => ({ attempts: (state.attempts ?? 0) + 1 });

async function callApi(state, config) {
  const delayMs = state.delay_ms ?? config.configurable?.delay_ms ?? 300;
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  throw new CustomError(`The upstream API refused the request after ${delayMs} ms`);
}

export const graph = new StateGraph(State)
  .addNode('prepare', prepare)
  .addNode('call_api', callApi)
  .addEdge(START, 'prepare')
  .addEdge('prepare', 'call_api')
  .addEdge('call_api', END)
  .compile();
