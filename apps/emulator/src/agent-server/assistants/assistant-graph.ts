// What the assistants' graph, schemas and subgraphs operations answer about a scripted graph:
// what a recording kept from the server it was made on, as it was; else drawn from the graph's
// shape as LangGraph's `Graph.toJSON()` draws it (the LangGraph JS server's answer for the ReAct
// shorthand's graph, field for field), and its state's channels as schemas.
import type { AssistantGraph, AssistantSubgraphs, GraphSchema } from '@agentplane/agent-server';
import type { Channels } from '../graphs/channels.js';
import type { ScriptedGraph } from '../graphs/scripted-graph.js';

type Values = Record<string, unknown>;

/** The graph's drawing; `xray` draws its subgraphs' nodes in their place. */
export function graphDrawing(graph: ScriptedGraph, xray = false): AssistantGraph {
  const recorded = xray ? (graph.recordedDrawing?.xray ?? graph.recordedDrawing?.plain) : graph.recordedDrawing?.plain;
  return (recorded as AssistantGraph | undefined) ?? graph.shape.drawing(xray);
}

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** A message in the state, as LangGraph writes it (the API's Message union, in brief: its type tells it apart). */
const MESSAGE_SCHEMA = {
  type: 'object',
  description: 'A message as LangGraph writes it, told apart by its type.',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['human', 'ai', 'tool', 'system', 'remove'] },
    content: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
    id: { type: 'string' },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: { type: 'object' } },
    tool_call_id: { type: 'string' },
  },
};

/** A state's JSON Schema: each key (`messages` as messages), with its default; a key's values are not typed by the config. */
function stateSchema(channels: Channels): Values {
  const defaults = channels.defaults();
  const properties = Object.fromEntries(
    channels.keys.map((key) => [
      key,
      channels.reducerOf(key) === 'messages'
        ? { type: 'array', items: MESSAGE_SCHEMA, ...(Object.hasOwn(defaults, key) ? { default: defaults[key] } : {}) }
        : Object.hasOwn(defaults, key)
          ? { default: defaults[key] }
          : {},
    ]),
  );
  // Self-contained, without `$ref`s: a tool that dereferences the answer (Prism does, in examples) needs no definitions.
  return { $schema: DRAFT_07, type: 'object', properties };
}

/**
 * The graph's JSON Schemas: as recorded, or its state (which is also what a run takes and gives)
 * and objects for the configuration and the context, which a scripted graph does not read.
 */
export function graphSchemas(graph: ScriptedGraph): GraphSchema {
  if (graph.recordedSchemas) return { ...graph.recordedSchemas, graph_id: graph.id } as GraphSchema;
  const state = stateSchema(graph.channels);
  const free = { $schema: DRAFT_07, type: 'object' };
  return { graph_id: graph.id, input_schema: state, output_schema: state, state_schema: state, config_schema: free, context_schema: free };
}

/**
 * The graph's subgraphs by namespace (`<node>`, nested ones `<node>|<inner node>` with `recurse`),
 * each with its state's schemas; those under `namespace` when one is given.
 */
export function graphSubgraphs(
  graph: ScriptedGraph,
  options: { namespace?: string | undefined; recurse?: boolean | undefined } = {},
): AssistantSubgraphs {
  const found: AssistantSubgraphs = {};
  const walk = (shape: ScriptedGraph['shape'], prefix: string[], depth: number) => {
    for (const [node, inner] of shape.subgraphs) {
      const path = [...prefix, node];
      const channels = graph.channelsOf(node);
      const state = stateSchema(channels);
      found[path.join('|')] = { graph_id: graph.id, input_schema: state, output_schema: state, state_schema: state } as GraphSchema;
      if (options.recurse || depth === 0) walk(inner, path, depth + 1);
    }
  };
  walk(graph.shape, [], 0);
  const namespace = options.namespace;
  // Without recurse, only the first level (of the namespace asked for) is listed.
  return Object.fromEntries(
    Object.entries(found).filter(([path]) => {
      const depth = path.split('|').length;
      if (namespace) return path === namespace || path.startsWith(`${namespace}|`);
      return options.recurse || depth === 1;
    }),
  );
}
