// The reference graphs of several shapes, as `startLangGraphServer` takes them: `rawGraphs`
// entries (`<absolute module path>:graph`, by graph id) and the default assistants' configs
// (`assistantConfigs`, which the server reads from LANGGRAPH_CONFIG).
//
// This module loads no graph (they need the packages that startLangGraphServer installs on first
// use), so it can be imported before they are there. The assistant configs live here, not in the
// graph modules, because that is where a LangGraph project keeps them too: in its deployment
// config (langgraph.json's `env`), not in the graph's code.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

const modules = (folder, files) =>
  Object.fromEntries(Object.entries(files).map(([graphId, file]) => [graphId, `${path.join(here, folder, file)}:graph`]));

/** The shapes an app's own graph takes (one module each in this folder; see each module's header). */
export const SHAPE_GRAPHS = modules('.', {
  supervisor: 'supervisor.js',
  subgraph_interrupt: 'subgraph_interrupt.js',
  parallel: 'parallel.js',
  custom_events: 'custom_events.js',
  tool_function: 'tool_function.js',
  custom_error: 'custom_error.js',
  configured: 'configured.js',
});

/** The default assistants' configs of SHAPE_GRAPHS: `configured`'s config and context (read by its `respond` node). */
export const SHAPE_ASSISTANT_CONFIGS = {
  configured: {
    configurable: { system_prompt: 'Answer in one sentence.' },
    tags: ['reference-shape'],
    recursion_limit: 12,
    context: { model: 'scripted-large', user_tier: 'pro' },
  },
};

/**
 * The LangGraph JS server's own test graphs (api-tests/, copied unchanged from its repository; see
 * api-tests/README.md), under the graph ids its tests use.
 */
export const API_TEST_GRAPHS = modules('api-tests', {
  agent: 'agent.mts',
  nested: 'nested.mts',
  weather: 'weather.mts',
  error: 'error.mts',
  delay: 'delay.mts',
  dynamic: 'dynamic.mts',
  agent_simple: 'agent_simple.mts',
  simple_runtime: 'simple_runtime.mts',
  state_schema_graph: 'state_schema_graph.mts',
  zod_registry_graph: 'zod_registry_graph.mts',
  plain_zod_graph: 'plain_zod_graph.mts',
});

/** The default assistants' configs of API_TEST_GRAPHS: its langgraph.json's LANGGRAPH_CONFIG. */
export const API_TEST_ASSISTANT_CONFIGS = {
  agent: { configurable: { model_name: 'openai' } },
  simple_runtime: { context: { model: 'unknown' } },
};
