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

const modules = (files) =>
  Object.fromEntries(
    Object.entries(files).map(([graphId, file]) => {
      const [module, symbol = 'graph'] = file.split(':');
      return [graphId, `${path.join(here, module)}:${symbol}`];
    }),
  );

/** The shapes an app's own graph takes (one module each in this folder; see each module's header). */
export const SHAPE_GRAPHS = modules({
  supervisor: 'supervisor.js',
  subgraph_interrupt: 'subgraph_interrupt.js',
  parallel: 'parallel.js',
  custom_events: 'custom_events.js',
  tool_function: 'tool_function.js',
  approval: 'approval.js',
  custom_error: 'custom_error.js',
  configured: 'configured.js',
  helpdesk: 'helpdesk.js',
  travel: 'travel.js',
  nested: 'nested.js',
  schemas_annotation: 'schemas_annotation.mts',
  schemas_state_schema: 'schemas.js:stateSchema',
  schemas_zod: 'schemas.js:zod',
  schemas_zod_with_langgraph: 'schemas.js:zodWithLangGraph',
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
