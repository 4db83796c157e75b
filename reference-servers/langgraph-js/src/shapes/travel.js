// A router on a state key, and a subgraph with a breakpoint compiled into it:
//   parent:    START → classify → (forecast | chat) → END
//   forecast:  START → locate → report → END, compiled with interruptBefore: ['report']
// `classify` writes `topic` ("weather" when the question mentions it, else "other"), and the
// conditional edge after it routes on that key. `locate` writes the city the question names;
// every run stops inside the subgraph before `report` (the thread waits at the parent's
// `forecast`), and a run with input null goes on and answers.
import { AIMessage } from '@langchain/core/messages';
import { END, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod/v4';

const CITIES = ['Lisbon', 'Oslo', 'Nairobi'];

const forecastState = new StateSchema({ messages: MessagesValue, city: z.string().optional() });

const locate = (state) => {
  const question = String(state.messages.findLast((message) => message.getType() === 'human')?.content ?? '');
  return { city: CITIES.find((city) => question.includes(city)) ?? 'Lisbon' };
};

const report = (state) => ({ messages: [new AIMessage(`Sunny spells in ${state.city} all week.`)] });

const forecast = new StateGraph(forecastState)
  .addNode('locate', locate)
  .addNode('report', report)
  .addEdge(START, 'locate')
  .addEdge('locate', 'report')
  .addEdge('report', END)
  .compile({ interruptBefore: ['report'] });

const classify = (state) => {
  const question = String(state.messages.at(-1)?.content ?? '');
  return { topic: /weather|forecast|rain|sun/i.test(question) ? 'weather' : 'other' };
};

const chat = () => ({ messages: [new AIMessage('I only know about the weather.')] });

export const graph = new StateGraph(new StateSchema({ messages: MessagesValue, topic: z.enum(['weather', 'other']).optional() }))
  .addNode('classify', classify)
  .addNode('forecast', forecast)
  .addNode('chat', chat)
  .addEdge(START, 'classify')
  .addConditionalEdges('classify', (state) => (state.topic === 'weather' ? 'forecast' : 'chat'), ['forecast', 'chat'])
  .addEdge('forecast', END)
  .addEdge('chat', END)
  .compile();
