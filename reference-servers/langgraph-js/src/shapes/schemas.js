// One small graph (START → tally → END: `tally` adds one to `count` and says so) with its state
// declared each way LangGraph JS reads a schema from, so that /assistants/{id}/schemas is answered
// from each: a StateSchema of Zod fields, a plain Zod object, and a Zod object whose reducer and
// messages type are declared with withLangGraph. The fourth way, an Annotation, is read from its
// TypeScript types: schemas_annotation.mts.
import { AIMessage } from '@langchain/core/messages';
import { END, MessagesValue, messagesStateReducer, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { withLangGraph } from '@langchain/langgraph/zod';
import { z as z3 } from 'zod/v3';
import { z } from 'zod/v4';

export const tally = (state) => ({ count: (state.count ?? 0) + 1, messages: [new AIMessage(`Counted ${(state.count ?? 0) + 1}.`)] });

const build = (state) => new StateGraph(state).addNode('tally', tally).addEdge(START, 'tally').addEdge('tally', END).compile();

export const stateSchema = build(new StateSchema({ messages: MessagesValue, count: z.number().default(0) }));

export const zod = build(z.object({ messages: z.array(z.any()).default([]), count: z.number().default(0) }));

export const zodWithLangGraph = build(
  z3.object({
    messages: withLangGraph(z3.array(z3.any()), {
      reducer: { schema: z3.any(), fn: (left, right) => messagesStateReducer(left, right) },
      default: () => [],
      jsonSchemaExtra: { langgraph_type: 'messages' },
    }),
    count: z3.number().default(0),
  }),
);
