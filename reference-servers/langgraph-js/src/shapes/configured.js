// A graph whose default assistant carries a config and a context, and whose answer shows which it
// ran with: `respond` reads the run's context (`runtime.context`, checked by the graph's context
// schema) and `configurable.system_prompt`.
//   START → respond → END
// Its state has no `messages` (the input is `{ question }`), and state and context are Zod
// schemas, so the server reads `/assistants/{id}/schemas` (context and config schemas included)
// from them at run time.
//
// The LangGraph JS server gives a default assistant a config only through the LANGGRAPH_CONFIG
// environment variable (`{ "<graph id>": { ...config, context } }`, read when it registers the
// graphs; a langgraph.json may set it in `env`); its metadata is always `{ created_by: 'system' }`.
// This graph's entry is SHAPE_ASSISTANT_CONFIGS.configured in src/shapes/index.js.
import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod/v4';

const State = z.object({ question: z.string(), answer: z.string().optional(), model: z.string().optional() });

const Context = z.object({ model: z.string().default('scripted-small'), user_tier: z.enum(['free', 'pro']).optional() });

function respond(state, runtime) {
  const { model, user_tier: tier = 'free' } = runtime.context ?? {};
  const prompt = runtime.configurable?.system_prompt ?? '(no system prompt)';
  return { answer: `[${model}, ${tier}] ${prompt} You asked: ${state.question}`, model };
}

export const graph = new StateGraph(State, { context: Context })
  .addNode('respond', respond)
  .addEdge(START, 'respond')
  .addEdge('respond', END)
  .compile();
