// The default assistant of each configured graph, as LangGraph's servers make one per graph: its
// ID is the UUID v5 of the graph ID in LangGraph's namespace, so the same graph ID names the same
// assistant everywhere, and a run may name it by either.
import { uuid5 } from '../../shared/ids.js';
import type { GraphRegistry } from '../scripted-graph.js';
import type { AssistantResolver, ResolvedAssistant } from './run-engine.js';

/** LangGraph's namespace for default assistant IDs (NAMESPACE_GRAPH of its API server). */
export const DEFAULT_ASSISTANT_NAMESPACE = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

export class DefaultAssistants implements AssistantResolver {
  private readonly byKey = new Map<string, ResolvedAssistant>();

  constructor(graphs: GraphRegistry) {
    for (const graphId of graphs.ids()) {
      const assistant = {
        assistant_id: uuid5(graphId, DEFAULT_ASSISTANT_NAMESPACE),
        graph_id: graphId,
        config: {},
        context: {},
        metadata: { created_by: 'system' },
      };
      this.byKey.set(graphId, assistant);
      this.byKey.set(assistant.assistant_id, assistant);
    }
  }

  resolve(assistantIdOrGraphId: string): ResolvedAssistant | undefined {
    return this.byKey.get(assistantIdOrGraphId) ?? this.byKey.get(assistantIdOrGraphId.toLowerCase());
  }
}
