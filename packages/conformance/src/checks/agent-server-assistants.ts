// The agent server's assistants and system routes, as stateful scenarios: the graphs' default
// assistants, create / get / update (versions) / set latest / search / count / delete on the run's
// own tagged assistants, the graph, schemas and subgraphs, GET /ok and /info, and the refusals.
// Each check names the rule it enforces and, where the spec declares the LangGraph JS server
// deliberately differs on that rule, the id of that difference (decision L5).
import type { Assistant } from '@agentplane/agent-server';
import { specOf } from '../spec.js';
import type { Verify } from '../verify.js';
import type { AgentServerSession } from './agent-server-session.js';
import { answer, defaultAssistantId, expectNotFound, short } from './agent-server-session.js';
import type { CheckDefinition } from './check.js';

type Check = CheckDefinition<AgentServerSession>;
const check = (definition: Omit<Check, 'api'>): Check => ({ api: 'agent-server', ...definition });

const path = (assistant_id: string) => ({ params: { path: { assistant_id } } });
const names = (assistants: Assistant[] | undefined) => (assistants ?? []).map((assistant) => assistant.name);

/** An assistant ID no server has. */
const UNKNOWN_ASSISTANT = '2f9c4e1a-7b3d-4c8e-9a6f-1d2e3c4b5a69';
/** A graph ID no deployment serves. */
const UNKNOWN_GRAPH = 'agentplane-conformance-no-such-graph';

/** Three assistants of the run, created in this order, with names and metadata to filter and sort by. */
async function threeAssistants(s: AgentServerSession, v: Verify): Promise<{ group: string; made: Assistant[] }> {
  const group = crypto.randomUUID();
  const made = [];
  for (const [name, kind] of [
    ['Zeta', 'a'],
    ['alpha', 'b'],
    ['Beta refunds', 'a'],
  ] as const) {
    made.push(await s.createAssistant(v, { name, metadata: { group, kind } }));
  }
  return { group, made };
}

export const ASSISTANT_CHECKS: Check[] = [
  // The server
  check({
    id: 'system:ok-and-info',
    area: 'system',
    title:
      'GET /ok answers {"ok": true}; GET /info answers the version of this API and that assistants, crons, strict resume and stream namespaces are served',
    rule: 'getHealth: 200 HealthCheck; getServerInfo: ServerInfo.version, flags.assistants, flags.crons, flags.strict_resume, flags.stream_namespaces (decision A14)',
    operations: ['getHealth', 'getServerInfo'],
    difference: 'info-describes-this-server',
    differenceIn: 'marked findings',
    async run(s, v) {
      const ok = await answer(s.client.GET('/ok'));
      v.equal([ok.status, ok.data], [200, { ok: true }], 'GET /ok');
      const info = await answer(s.client.GET('/info'));
      if (!v.equal(info.status, 200, 'GET /info status')) return;
      v.equal(info.data?.flags?.assistants, true, 'flags.assistants');
      v.equal(info.data?.flags?.crons, true, 'flags.crons (crons are served)', { differs: true });
      v.equal(
        [info.data?.flags?.strict_resume, info.data?.flags?.stream_namespaces],
        [true, true],
        'flags.strict_resume and flags.stream_namespaces (a server of this API honours both)',
        { differs: true },
      );
      v.equal(info.data?.version, specOf('agent-server').info.version, 'version (the version of the API this run checks)', {
        differs: true,
      });
    },
  }),

  // Default assistants
  check({
    id: 'assistants:default-per-graph',
    area: 'assistants',
    title:
      "each graph has a default assistant (created_by system, named after the graph, its ID the UUID v5 of the graph's), which the graph ID names",
    rule: 'Assistant.assistant_id, AssistantMetadata.created_by; assistant_id path parameter: a graph ID (decision A12)',
    operations: ['searchAssistants', 'getAssistant'],
    async run(s, v) {
      const found = await answer(s.client.POST('/assistants/search', { body: { metadata: { created_by: 'system' }, limit: 1000 } }));
      const defaults = found.data ?? [];
      if (!v.that(found.status === 200 && defaults.length > 0, `no default assistant found (${found.status}: ${short(found.error)})`))
        return;
      if (s.graphId)
        v.that(
          defaults.some((a) => a.graph_id === s.graphId),
          `no default assistant of --graph-id ${s.graphId}`,
        );
      for (const assistant of defaults) {
        v.equal(
          assistant.assistant_id,
          defaultAssistantId(assistant.graph_id),
          `assistant_id of the default assistant of ${assistant.graph_id}`,
        );
        v.equal(assistant.name, assistant.graph_id, `name of the default assistant of ${assistant.graph_id}`);
        const byGraph = await answer(s.client.GET('/assistants/{assistant_id}', path(assistant.graph_id)));
        v.equal([byGraph.status, byGraph.data?.assistant_id], [200, assistant.assistant_id], `GET /assistants/${assistant.graph_id}`);
      }
    },
  }),

  // Create, read, update
  check({
    id: 'assistants:create-get',
    area: 'assistants',
    title:
      'a created assistant is version 1 with what was given, reads back the same, and a taken ID is a 409 (do_nothing: the existing one)',
    rule: 'createAssistant: AssistantCreate, if_exists, 409 ErrorDetail; getAssistant (decision A12)',
    operations: ['createAssistant', 'getAssistant'],
    difference: 'error-detail-body',
    differenceIn: 'marked findings',
    async run(s, v) {
      const given = {
        name: 'Refunds (EU)',
        description: 'Refund questions of EU customers',
        config: { tags: ['eu'], recursion_limit: 40, configurable: { model: 'gpt-4o-mini' } },
        context: { region: 'eu-west-1' },
      };
      const created = await s.createAssistant(v, { ...given, metadata: { team: 'billing' } });
      v.equal(
        [created.version, created.name, created.description, created.config, created.context, created.metadata.team],
        [1, given.name, given.description, given.config, given.context, 'billing'],
        'version and fields of the create answer',
      );
      const got = await answer(s.client.GET('/assistants/{assistant_id}', path(created.assistant_id)));
      v.equal(got.data, created, 'the assistant read back');
      const body = { assistant_id: created.assistant_id, graph_id: created.graph_id, name: 'Other', metadata: s.tag };
      const again = await answer(s.client.POST('/assistants', { body }));
      v.equal(again.status, 409, 'if_exists raise: status');
      if (again.status === 409)
        v.equal(typeof (again.error as { detail?: unknown } | undefined)?.detail, 'string', 'if_exists raise: type of detail', {
          differs: true,
        });
      const same = await answer(s.client.POST('/assistants', { body: { ...body, if_exists: 'do_nothing' } }));
      v.equal([same.status, same.data?.name], [200, given.name], 'if_exists do_nothing: status and the name kept');
    },
  }),
  check({
    id: 'assistants:update-versions',
    area: 'assistants',
    title: 'an update is a new current version (metadata merged), every version is listed newest first, and an empty page is empty',
    rule: 'updateAssistant: AssistantPatch; listAssistantVersions (decision A12)',
    operations: ['updateAssistant', 'listAssistantVersions', 'createAssistant'],
    difference: 'versions-empty-page',
    differenceIn: 'marked findings',
    async run(s, v) {
      const created = await s.createAssistant(v, { name: 'First', metadata: { kept: 1 } });
      const p = path(created.assistant_id);
      const updated = await answer(
        s.client.PATCH('/assistants/{assistant_id}', { ...p, body: { name: 'Second', metadata: { added: 2 } } }),
      );
      v.equal(
        [updated.status, updated.data?.version, updated.data?.name, updated.data?.metadata?.kept, updated.data?.metadata?.added],
        [200, 2, 'Second', 1, 2],
        'status, version, name and metadata of the update answer',
      );
      const versions = await answer(s.client.POST('/assistants/{assistant_id}/versions', { ...p, body: {} }));
      v.equal(
        (versions.data ?? []).map((version) => [version.version, version.name]),
        [
          [2, 'Second'],
          [1, 'First'],
        ],
        'versions, newest first',
      );
      const filtered = await answer(s.client.POST('/assistants/{assistant_id}/versions', { ...p, body: { metadata: { added: 2 } } }));
      v.equal(
        (filtered.data ?? []).map((version) => version.version),
        [2],
        'versions whose metadata has added: 2',
      );
      const none = await answer(s.client.POST('/assistants/{assistant_id}/versions', { ...p, body: { metadata: { added: 3 } } }));
      v.equal([none.status, none.data], [200, []], 'versions no metadata matches: status and page', { differs: true });
    },
  }),
  check({
    id: 'assistants:set-latest',
    area: 'assistants',
    title: 'setting an earlier version makes the assistant that version, whole; the next update is numbered after the highest',
    rule: 'setLatestAssistantVersion: AssistantLatestVersion, 404 for an unknown version (decision A12)',
    operations: ['setLatestAssistantVersion', 'updateAssistant', 'createAssistant'],
    difference: 'set-latest-restores-the-version',
    differenceIn: 'marked findings',
    async run(s, v) {
      const created = await s.createAssistant(v, { name: 'One', description: 'first', context: { n: 1 } });
      const p = path(created.assistant_id);
      await answer(s.client.PATCH('/assistants/{assistant_id}', { ...p, body: { name: 'Two', description: 'second', context: { n: 2 } } }));
      const back = await answer(s.client.POST('/assistants/{assistant_id}/latest', { ...p, body: { version: 1 } }));
      v.equal([back.status, back.data?.version, back.data?.name], [200, 1, 'One'], 'status, version and name after setting version 1');
      v.equal([back.data?.context, back.data?.description], [{ n: 1 }, 'first'], 'context and description of version 1', { differs: true });
      const next = await answer(s.client.PATCH('/assistants/{assistant_id}', { ...p, body: {} }));
      v.equal(next.data?.version, 3, 'version of the next update');
      const unknown = await answer(s.client.POST('/assistants/{assistant_id}/latest', { ...p, body: { version: 9 } }));
      v.equal(unknown.status, 404, 'an unknown version: status');
    },
  }),

  // Search and count
  check({
    id: 'assistants:search',
    area: 'assistants',
    title: 'search filters by metadata, graph and a part of the name ignoring case, newest first, and sorts as asked',
    rule: 'searchAssistants: AssistantSearch (decision A12)',
    operations: ['searchAssistants', 'createAssistant'],
    difference: 'assistant-search-sorts',
    differenceIn: 'marked findings',
    async run(s, v) {
      const { group, made } = await threeAssistants(s, v);
      const search = async (body: Record<string, unknown>) =>
        names((await s.searchAssistants({ ...body, metadata: { group, ...(body.metadata as object) } })).data);
      v.equal(await search({}), ['Beta refunds', 'alpha', 'Zeta'], 'all, newest first');
      v.equal(await search({ metadata: { kind: 'a' } }), ['Beta refunds', 'Zeta'], 'by metadata');
      v.equal(await search({ graph_id: made[0]!.graph_id }), ['Beta refunds', 'alpha', 'Zeta'], "by the assistants' graph");
      v.equal(await search({ name: 'ETA' }), ['Beta refunds', 'Zeta'], 'by a part of the name, ignoring case');
      v.equal(await search({ sort_by: 'name', sort_order: 'asc' }), ['Beta refunds', 'Zeta', 'alpha'], 'sorted by name, ascending', {
        differs: true,
      });
      v.equal(await search({ sort_by: 'created_at', sort_order: 'asc' }), ['Zeta', 'alpha', 'Beta refunds'], 'oldest first', {
        differs: true,
      });
    },
  }),
  check({
    id: 'assistants:search-pages',
    area: 'assistants',
    title:
      'search pages with limit and offset; X-Pagination-Total is the count, and X-Pagination-Next is there exactly while matches remain',
    rule: 'searchAssistants: limit, offset, X-Pagination-Total, X-Pagination-Next; countAssistants (decision A12)',
    operations: ['searchAssistants', 'countAssistants', 'createAssistant'],
    difference: 'pagination-next-when-more',
    differenceIn: 'marked findings',
    async run(s, v) {
      const { group } = await threeAssistants(s, v);
      // In the default order, newest first: the pages are not about sorting (assistants:search is).
      const page = (limit: number, offset: number) => s.searchAssistants({ metadata: { group }, limit, offset });
      const first = await page(2, 0);
      v.equal(names(first.data), ['Beta refunds', 'alpha'], 'first page');
      v.equal(first.headers.get('x-pagination-total'), '3', 'X-Pagination-Total of the first page');
      v.equal(first.headers.get('x-pagination-next'), '2', 'X-Pagination-Next of the first page', { differs: true });
      const last = await page(2, 2);
      v.equal(names(last.data), ['Zeta'], 'last page');
      v.equal(last.headers.get('x-pagination-next'), null, 'X-Pagination-Next of the last page', { differs: true });
      const whole = await page(3, 0);
      v.equal(whole.headers.get('x-pagination-next'), null, 'X-Pagination-Next of a page holding every match', { differs: true });
      const counted = await s.countAssistants({ metadata: { group } });
      v.equal(counted.data, 3, 'count');
      v.equal((await s.countAssistants({ metadata: { group, kind: 'a' } })).data, 2, 'count by metadata');
      v.equal((await s.countAssistants({ metadata: { group }, name: 'eta' })).data, 2, 'count by a part of the name');
    },
  }),
  check({
    id: 'assistants:select',
    area: 'assistants',
    title: 'select answers the selected optional fields, and every assistant still has its required fields',
    rule: 'searchAssistants: AssistantSearch.select (decision A12)',
    operations: ['searchAssistants', 'createAssistant'],
    difference: 'assistant-select-keeps-identifying-fields',
    async run(s, v) {
      const created = await s.createAssistant(v, { name: 'Selected', description: 'kept' });
      const found = (await s.searchAssistants({ select: ['assistant_id', 'name', 'description'] })).data ?? [];
      const one = found.find((assistant) => assistant.assistant_id === created.assistant_id);
      if (!v.that(one !== undefined, 'the assistant is not found')) return;
      v.equal(one!.description, 'kept', 'selected description');
      v.equal(
        ['assistant_id', 'graph_id', 'name', 'version', 'created_at', 'updated_at', 'metadata'].filter((field) => !(field in one!)),
        [],
        'required fields missing',
      );
    },
  }),

  // Delete
  check({
    id: 'assistants:delete',
    area: 'assistants',
    title: 'a deleted assistant is a 404 everywhere, and delete_threads deletes the threads whose metadata names it',
    rule: 'deleteAssistant: 204, delete_threads; then 404 on getAssistant, listAssistantVersions, deleteAssistant (decision A12)',
    operations: [
      'deleteAssistant',
      'getAssistant',
      'listAssistantVersions',
      'createAssistant',
      'createThread',
      'countThreads',
      'getThread',
    ],
    difference: 'delete-assistant-answers-204',
    differenceIn: 'marked findings',
    async run(s, v) {
      const [doomed, kept] = [await s.createAssistant(v), await s.createAssistant(v)];
      const own = await s.create(v, { metadata: { assistant_id: doomed.assistant_id } });
      const other = await s.create(v, { metadata: { assistant_id: kept.assistant_id } });
      const p = path(doomed.assistant_id);
      const deleted = await answer(
        s.client.DELETE('/assistants/{assistant_id}', { params: { ...p.params, query: { delete_threads: true } } }),
      );
      if (deleted.status >= 200 && deleted.status < 300) s.forgetAssistant(doomed.assistant_id);
      v.equal(deleted.status, 204, 'status of the delete', { differs: true });
      v.equal((await answer(s.client.GET('/assistants/{assistant_id}', p))).status, 404, 'getAssistant after delete');
      v.equal(
        (await answer(s.client.POST('/assistants/{assistant_id}/versions', { ...p, body: {} }))).status,
        404,
        'listAssistantVersions after delete',
      );
      v.equal((await answer(s.client.DELETE('/assistants/{assistant_id}', p))).status, 404, 'second delete');
      // Counted, not read: a 404 to a read of a thread the run holds live would say that the route is not served.
      const left = await s.count({ metadata: { assistant_id: doomed.assistant_id } });
      if (left.data === 0) s.forget(own.thread_id);
      v.equal(left.data, 0, 'threads whose metadata.assistant_id named it, left');
      const otherThread = await answer(s.client.GET('/threads/{thread_id}', { params: { path: { thread_id: other.thread_id } } }));
      v.equal(otherThread.status, 200, "getThread of another assistant's thread");
    },
  }),

  // The graph
  check({
    id: 'assistants:graph',
    area: 'assistants',
    title:
      "the graph of a graph's default assistant has its __start__ and __end__ nodes and edges between its nodes; subgraphs answer an object",
    rule: 'getAssistantGraph: AssistantGraph; getAssistantSubgraphs, getAssistantSubgraphsInNamespace: AssistantSubgraphs (decision A12)',
    operations: ['getAssistantGraph', 'getAssistantSubgraphs', 'getAssistantSubgraphsInNamespace'],
    async run(s, v) {
      const graphId = await s.assistantGraph(v);
      const graph = await answer(
        s.client.GET('/assistants/{assistant_id}/graph', { params: { path: { assistant_id: graphId }, query: { xray: 'true' } } }),
      );
      if (!v.equal(graph.status, 200, 'getAssistantGraph status')) return;
      const nodes = new Set((graph.data?.nodes ?? []).map((node) => String(node.id)));
      v.that(nodes.has('__start__') && nodes.has('__end__'), `nodes ${short([...nodes])} lack __start__ or __end__`);
      const loose = (graph.data?.edges ?? []).filter((edge) => !nodes.has(edge.source) || !nodes.has(edge.target));
      v.equal(loose, [], 'edges to or from a node the graph does not list');
      const subgraphs = await answer(s.client.GET('/assistants/{assistant_id}/subgraphs', { params: { path: { assistant_id: graphId } } }));
      v.that(subgraphs.status === 200 && typeof subgraphs.data === 'object', `getAssistantSubgraphs answered ${subgraphs.status}`);
      const inNamespace = await answer(
        s.client.GET('/assistants/{assistant_id}/subgraphs/{namespace}', {
          params: { path: { assistant_id: graphId, namespace: 'agentplane-conformance' } },
        }),
      );
      v.equal([inNamespace.status, inNamespace.data], [200, {}], 'subgraphs in a namespace the graph does not have');
    },
  }),
  check({
    id: 'assistants:schemas',
    area: 'assistants',
    title: "a graph's default assistant answers the JSON Schemas of its graph",
    rule: 'getAssistantSchemas: GraphSchema (decision A12)',
    operations: ['getAssistantSchemas'],
    difference: 'schemas-of-a-javascript-graph',
    async run(s, v) {
      const graphId = await s.assistantGraph(v);
      const schemas = await answer(s.client.GET('/assistants/{assistant_id}/schemas', { params: { path: { assistant_id: graphId } } }));
      v.equal([schemas.status, schemas.data?.graph_id], [200, graphId], 'status and graph_id');
    },
  }),

  // Refusals
  check({
    id: 'assistants:unknown-graph',
    area: 'assistants',
    title: 'an assistant of a graph the deployment does not serve is refused with 404, at create and at update',
    rule: 'createAssistant, updateAssistant: 404 for a graph_id not served (decision A12)',
    operations: ['createAssistant', 'updateAssistant'],
    difference: 'assistant-graph-must-exist',
    async run(s, v) {
      const created = await answer(s.client.POST('/assistants', { body: { graph_id: UNKNOWN_GRAPH, metadata: s.tag } }));
      if (created.data) s.trackAssistant(created.data.assistant_id);
      v.equal(created.status, 404, 'create: status');
      const mine = await s.createAssistant(v);
      const updated = await answer(
        s.client.PATCH('/assistants/{assistant_id}', { ...path(mine.assistant_id), body: { graph_id: UNKNOWN_GRAPH } }),
      );
      v.equal(updated.status, 404, 'update: status');
    },
  }),
  check({
    id: 'errors:unknown-assistant',
    area: 'errors',
    title: 'an unknown assistant is a 404 {detail} for every operation on it',
    rule: 'ErrorDetail; 404 of getAssistant, updateAssistant, deleteAssistant, listAssistantVersions, setLatestAssistantVersion, getAssistantGraph (decision A3)',
    operations: [
      'getAssistant',
      'updateAssistant',
      'deleteAssistant',
      'listAssistantVersions',
      'setLatestAssistantVersion',
      'getAssistantGraph',
    ],
    difference: 'error-detail-body',
    differenceIn: 'marked findings',
    async run(s, v) {
      const p = path(UNKNOWN_ASSISTANT);
      await expectNotFound(v, [
        ['getAssistant', () => s.client.GET('/assistants/{assistant_id}', p)],
        ['updateAssistant', () => s.client.PATCH('/assistants/{assistant_id}', { ...p, body: {} })],
        ['deleteAssistant', () => s.client.DELETE('/assistants/{assistant_id}', p)],
        ['listAssistantVersions', () => s.client.POST('/assistants/{assistant_id}/versions', { ...p, body: {} })],
        ['setLatestAssistantVersion', () => s.client.POST('/assistants/{assistant_id}/latest', { ...p, body: { version: 1 } })],
        ['getAssistantGraph', () => s.client.GET('/assistants/{assistant_id}/graph', p)],
      ]);
    },
  }),
  check({
    id: 'errors:malformed-assistant-id',
    area: 'errors',
    title: 'text that is neither a UUID nor a graph ID is a 422 HTTPValidationError at path.assistant_id',
    rule: 'HTTPValidationError; path parameter assistant_id: a UUID or a GraphId (decision A12)',
    operations: ['getAssistant'],
    difference: 'malformed-assistant-id-is-422',
    async run(s, v) {
      const got = await answer<unknown>(s.client.GET('/assistants/{assistant_id}', path('not an assistant!')));
      const locs = ((got.error as { detail?: { loc?: unknown[] }[] } | undefined)?.detail ?? []).map((item) => item.loc?.join('.'));
      v.equal([got.status, locs.includes('path.assistant_id')], [422, true], 'status, and an issue at path.assistant_id');
    },
  }),
];
