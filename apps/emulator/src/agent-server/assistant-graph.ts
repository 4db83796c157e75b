// What the assistants' graph, schemas and subgraphs operations answer about a scripted graph.
// Every scripted graph has the shape of LangGraph's prebuilt ReAct agent (react-agent.ts), drawn
// here as LangGraph's `Graph.toJSON()` draws it: the LangGraph JS server's answer for that graph,
// field for field. Its state is `messages` and the keys the graph's config declares, with their
// defaults; it has no subgraphs.
import type { AssistantGraph, AssistantSubgraphs, GraphSchema } from '@agentplane/agent-server';
import { END, REACT_AGENT_GRAPH, START } from './react-agent.js';
import type { ScriptedGraph } from './scripted-graph.js';

/**
 * The graph's drawing. `__start__` and `__end__` are drawn as schemas (of no state in particular)
 * and the nodes as the runnables LangGraph wraps node functions in. The scripted graphs have no
 * subgraphs, so `xray` draws them the same at any depth.
 */
export function graphDrawing(): AssistantGraph {
  return {
    nodes: REACT_AGENT_GRAPH.nodes.map((id) =>
      id === START || id === END
        ? { id, type: 'schema', data: { $schema: 'https://json-schema.org/draft/2020-12/schema' } }
        : { id, type: 'runnable', data: { id: ['langgraph', 'RunnableCallable'], name: id } },
    ),
    edges: REACT_AGENT_GRAPH.edges.map((edge) => ({ ...edge })),
  };
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

/**
 * The graph's JSON Schemas: its state (`messages` first, then the declared keys, each with its
 * default; a declared key's values are not typed by the config, so any value is allowed), which
 * is also what a run takes and gives, and objects for the configuration and the context, which a
 * scripted graph does not read.
 */
export function graphSchemas(graph: ScriptedGraph): GraphSchema {
  const properties = Object.fromEntries(
    graph.stateKeys.map((key) => [
      key,
      key === 'messages' ? { type: 'array', items: MESSAGE_SCHEMA, default: [] } : { default: graph.defaults[key] ?? null },
    ]),
  );
  // Self-contained, without `$ref`s: a tool that dereferences the answer (Prism does, in examples) needs no definitions.
  const state = { $schema: DRAFT_07, type: 'object', properties };
  const free = { $schema: DRAFT_07, type: 'object' };
  return { graph_id: graph.id, input_schema: state, output_schema: state, state_schema: state, config_schema: free, context_schema: free };
}

/** A scripted graph's subgraphs, at any namespace and depth: none. */
export function graphSubgraphs(): AssistantSubgraphs {
  return {};
}
