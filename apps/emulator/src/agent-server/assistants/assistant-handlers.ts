// The assistant operations of the agent server API. Requests arrive validated (with the spec's
// defaults filled in, except in the PATCH body); handlers add the rules a schema cannot state
// (existence, `if_exists`, graphs the deployment serves, versions) and shape the answers. An
// assistant is named in a path by its ID or by a graph ID (its default assistant): the store's
// `resolve` reads either.
import type { Assistant } from '@agentplane/agent-server';
import { AssistantSchema } from '../../generated/agent-server/contract.js';
import { HttpError } from '../../http/http-error.js';
import { canonicalUuid, newAssistantId } from '../../shared/ids.js';
import type { GraphRegistry } from '../graphs/scripted-graph.js';
import type { AgentServerHandlers } from '../handler-map.js';
import type { ThreadStore } from '../threads/thread-store.js';
import { graphDrawing, graphSchemas, graphSubgraphs } from './assistant-graph.js';
import type { AssistantRow, AssistantStore } from './assistant-store.js';

/**
 * What the assistant operations need of the runs (the run engine answers it): an assistant, or
 * threads, going away with their runs. Declared here, so that the assistant room does not import
 * the runs room above it.
 */
export interface RunsOfAssistants {
  forgetAssistant(assistantId: string): void;
  forgetThreads(threadIds: readonly string[]): void;
}

export interface AssistantHandlerOptions {
  /** The clock of `created_at` and `updated_at` (tests move it). */
  now?: (() => number) | undefined;
}

export function assistantHandlers(
  assistants: AssistantStore,
  threads: ThreadStore,
  graphs: GraphRegistry,
  engine: RunsOfAssistants,
  options: AssistantHandlerOptions = {},
) {
  const now = options.now ?? Date.now;
  const nowIso = () => new Date(now()).toISOString();
  const requireAssistant = (named: string): AssistantRow => {
    const assistant = assistants.resolve(named);
    if (!assistant) throw new HttpError(404, `Assistant ${named} not found.`);
    return assistant;
  };
  const requireGraph = (graphId: string) => {
    const graph = graphs.get(graphId);
    if (!graph) throw new HttpError(404, `Graph "${graphId}" not found.`);
    return graph;
  };

  // `select` chooses among an answer's optional fields; the required ones identify an assistant and are always there.
  const alwaysSelected = AssistantSchema.required;

  return {
    createAssistant({ body }) {
      requireGraph(body.graph_id);
      const assistantId = body.assistant_id ? canonicalUuid(body.assistant_id) : newAssistantId();
      return assistants.transaction(() => {
        // An ID the emulator just made is new; only a client's own can be taken.
        const existing = body.assistant_id ? assistants.get(assistantId) : undefined;
        if (existing) {
          if (body.if_exists === 'do_nothing') return { status: 200, body: existing };
          throw new HttpError(409, `Assistant ${assistantId} already exists.`);
        }
        const fields = {
          graph_id: body.graph_id,
          config: body.config ?? {},
          context: body.context ?? {},
          metadata: body.metadata ?? {},
          name: body.name,
          description: body.description ?? null,
        };
        return { status: 200, body: assistants.insert(assistantId, fields, nowIso()) };
      });
    },

    getAssistant({ path }) {
      return { status: 200, body: requireAssistant(path.assistant_id) };
    },

    updateAssistant({ path, body }) {
      return assistants.transaction(() => {
        const current = requireAssistant(path.assistant_id);
        if (body.graph_id !== undefined) requireGraph(body.graph_id);
        const fields = {
          graph_id: body.graph_id ?? current.graph_id,
          config: body.config ?? current.config,
          context: body.context ?? current.context,
          metadata: body.metadata === undefined ? current.metadata : { ...current.metadata, ...body.metadata },
          name: body.name ?? current.name,
          description: body.description ?? current.description,
        };
        return { status: 200, body: assistants.addVersion(current.assistant_id, fields, nowIso()) };
      });
    },

    deleteAssistant({ path, query }) {
      return assistants.transaction(() => {
        const { assistant_id } = requireAssistant(path.assistant_id);
        // Its runs go with it, as LangGraph deletes them; those in flight stop first, keeping what they wrote.
        engine.forgetAssistant(assistant_id);
        assistants.delete(assistant_id);
        if (query.delete_threads) {
          const ids = threads.idsByMetadata('assistant_id', assistant_id);
          engine.forgetThreads(ids);
          for (const threadId of ids) threads.delete(threadId);
        }
        return { status: 204 as const };
      });
    },

    searchAssistants({ body }) {
      const select = body.select ? new Set<string>([...alwaysSelected, ...body.select]) : undefined;
      const { assistants: page, total } = assistants.search(body);
      const next = body.offset + page.length;
      return {
        status: 200,
        body: page.map((assistant) => (select ? pick(assistant, select) : assistant)),
        // The next page's offset while matches remain after this one (X-Pagination-Next).
        headers: { 'X-Pagination-Total': total, ...(next < total ? { 'X-Pagination-Next': next } : {}) },
      };
    },

    countAssistants({ body }) {
      return { status: 200, body: assistants.count(body) };
    },

    listAssistantVersions({ path, body }) {
      const { assistant_id } = requireAssistant(path.assistant_id);
      return { status: 200, body: assistants.versions(assistant_id, body) };
    },

    setLatestAssistantVersion({ path, body }) {
      return assistants.transaction(() => {
        const { assistant_id } = requireAssistant(path.assistant_id);
        if (!assistants.setCurrentVersion(assistant_id, body.version, nowIso()))
          throw new HttpError(404, `Assistant ${assistant_id} has no version ${body.version}.`);
        return { status: 200, body: assistants.get(assistant_id)! };
      });
    },

    getAssistantGraph({ path, query }) {
      const graph = requireGraph(requireAssistant(path.assistant_id).graph_id);
      return { status: 200, body: graphDrawing(graph, query.xray !== undefined && query.xray !== 'false' && query.xray !== '0') };
    },

    getAssistantSchemas({ path }) {
      return { status: 200, body: graphSchemas(requireGraph(requireAssistant(path.assistant_id).graph_id)) };
    },

    getAssistantSubgraphs({ path, query }) {
      const graph = requireGraph(requireAssistant(path.assistant_id).graph_id);
      return { status: 200, body: graphSubgraphs(graph, { recurse: query.recurse }) };
    },

    getAssistantSubgraphsInNamespace({ path, query }) {
      const graph = requireGraph(requireAssistant(path.assistant_id).graph_id);
      return { status: 200, body: graphSubgraphs(graph, { namespace: path.namespace, recurse: query.recurse }) };
    },
  } satisfies Partial<AgentServerHandlers>;
}

function pick(assistant: AssistantRow, fields: ReadonlySet<string>): Assistant {
  return Object.fromEntries(Object.entries(assistant).filter(([key]) => fields.has(key))) as Assistant;
}
