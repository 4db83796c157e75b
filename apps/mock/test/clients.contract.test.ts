// The real typed clients against the Prism mocks: every operation of both APIs, for every
// status the spec documents, answers as the spec says, and the client surfaces it as typed
// data (2xx) or a typed error (the rest).
import type { AgentServerClient } from '@agentplane/agent-server';
import { createAgentServerClient } from '@agentplane/agent-server';
import type { ControlPlaneClient } from '@agentplane/control-plane';
import { createControlPlaneClient } from '@agentplane/control-plane';
import { createValidator, listOperations, loadBundle } from '@agentplane/openapi-toolkit';
import { describe, expect, inject, it } from 'vitest';
import { mockStatus, responseSchema } from './requests.js';

const urls = inject('mockUrls');
const DEPLOYMENT_ID = '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50';
const REVISION_ID = '5e8f2c1a-9b7d-4e6f-a3c2-7d1e0f9b8a64';
const THREAD_ID = '8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f';
const CHECKPOINT_ID = '1f0c6d2e-3a47-6e10-8001-9d7e0f1a2b3c';
const RUN_ID = '0193a1b2-7c4d-7e5f-8a6b-9c0d1e2f3a4b';
const RUN_BODY = { assistant_id: 'support', input: { messages: [{ type: 'human' as const, content: 'Where is my order 4512?' }] } };
const ASSISTANT_ID = '2f9c4e1a-7b3d-4c8e-9a6f-1d2e3c4b5a69';
const CRON_ID = '0193b5e2-4a1c-7d2e-9f3a-5b6c7d8e9f01';

type Call<C> = (client: C, headers: Record<string, string>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** One typed call per operation: if an operation's shape changes, this table stops compiling. */
const controlPlaneCalls: Record<string, Call<ControlPlaneClient>> = {
  listDeployments: (c, headers) =>
    c.GET('/v2/deployments', { headers, params: { query: { name_contains: 'billing', limit: 20, offset: 0 } } }),
  createDeployment: (c, headers) =>
    c.POST('/v2/deployments', {
      headers,
      body: {
        name: 'billing-agent',
        source: 'external_container',
        source_revision_config: { image_uri: 'registry.acme.internal/agents/billing-agent:1.8.2' },
      },
    }),
  getDeployment: (c, headers) => c.GET('/v2/deployments/{deployment_id}', { headers, params: { path: { deployment_id: DEPLOYMENT_ID } } }),
  updateDeployment: (c, headers) =>
    c.PATCH('/v2/deployments/{deployment_id}', {
      headers,
      params: { path: { deployment_id: DEPLOYMENT_ID } },
      body: { source_revision_config: { image_uri: 'r/a:2' } },
    }),
  deleteDeployment: (c, headers) =>
    c.DELETE('/v2/deployments/{deployment_id}', { headers, params: { path: { deployment_id: DEPLOYMENT_ID } } }),
  listRevisions: (c, headers) =>
    c.GET('/v2/deployments/{deployment_id}/revisions', {
      headers,
      params: { path: { deployment_id: DEPLOYMENT_ID }, query: { status: 'DEPLOYED', limit: 5 } },
    }),
  getRevision: (c, headers) =>
    c.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
      headers,
      params: { path: { deployment_id: DEPLOYMENT_ID, revision_id: REVISION_ID } },
    }),
  createRevision: (c, headers) =>
    c.POST('/v2/deployments/{deployment_id}/revisions', { headers, params: { path: { deployment_id: DEPLOYMENT_ID } } }),
  redeployRevision: (c, headers) =>
    c.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
      headers,
      params: { path: { deployment_id: DEPLOYMENT_ID, revision_id: REVISION_ID } },
    }),
  listRevisionLogs: (c, headers) =>
    c.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
      headers,
      params: { path: { deployment_id: DEPLOYMENT_ID, revision_id: REVISION_ID }, query: { type: 'build', order: 'desc', limit: 20 } },
    }),
  getOauthProvider: (c, headers) => c.GET('/v2/auth/providers/{provider_id}', { headers, params: { path: { provider_id: 'github' } } }),
  getSandboxPool: (c, headers) => c.GET('/v2/sandboxes/pools/{name}', { headers, params: { path: { name: 'python-pool' } } }),
};

const agentServerCalls: Record<string, Call<AgentServerClient>> = {
  createThread: (c, headers) => c.POST('/threads', { headers, body: { metadata: { graph_id: 'support' } } }),
  searchThreads: (c, headers) => c.POST('/threads/search', { headers, body: { metadata: { graph_id: 'support' }, limit: 20 } }),
  getThread: (c, headers) => c.GET('/threads/{thread_id}', { headers, params: { path: { thread_id: THREAD_ID } } }),
  copyThread: (c, headers) => c.POST('/threads/{thread_id}/copy', { headers, params: { path: { thread_id: THREAD_ID } } }),
  getThreadState: (c, headers) =>
    c.GET('/threads/{thread_id}/state', { headers, params: { path: { thread_id: THREAD_ID }, query: { subgraphs: false } } }),
  getThreadStateAtCheckpoint: (c, headers) =>
    c.GET('/threads/{thread_id}/state/{checkpoint_id}', {
      headers,
      params: { path: { thread_id: THREAD_ID, checkpoint_id: CHECKPOINT_ID } },
    }),
  getThreadHistory: (c, headers) =>
    c.POST('/threads/{thread_id}/history', {
      headers,
      params: { path: { thread_id: THREAD_ID } },
      body: { limit: 10, before: { configurable: { checkpoint_id: CHECKPOINT_ID } } },
    }),
  countThreads: (c, headers) => c.POST('/threads/count', { headers, body: { metadata: { graph_id: 'support' }, status: 'idle' } }),
  pruneThreads: (c, headers) => c.POST('/threads/prune', { headers, body: { thread_ids: [THREAD_ID], strategy: 'keep_latest' } }),
  updateThread: (c, headers) =>
    c.PATCH('/threads/{thread_id}', {
      headers,
      params: { path: { thread_id: THREAD_ID } },
      body: { metadata: { resolved: true }, ttl: 60 },
    }),
  deleteThread: (c, headers) => c.DELETE('/threads/{thread_id}', { headers, params: { path: { thread_id: THREAD_ID } } }),
  updateThreadState: (c, headers) =>
    c.POST('/threads/{thread_id}/state', {
      headers,
      params: { path: { thread_id: THREAD_ID } },
      body: { values: { messages: [{ type: 'ai', content: 'On it.' }] }, as_node: 'agent' },
    }),
  patchThreadState: (c, headers) =>
    c.PATCH('/threads/{thread_id}/state', { headers, params: { path: { thread_id: THREAD_ID } }, body: { metadata: { reviewed: true } } }),
  getThreadStateAtCheckpointObject: (c, headers) =>
    c.POST('/threads/{thread_id}/state/checkpoint', {
      headers,
      params: { path: { thread_id: THREAD_ID } },
      body: { checkpoint: { checkpoint_id: CHECKPOINT_ID, checkpoint_ns: '' } },
    }),
  listRuns: (c, headers) =>
    c.GET('/threads/{thread_id}/runs', { headers, params: { path: { thread_id: THREAD_ID }, query: { limit: 10, status: 'success' } } }),
  createRun: (c, headers) => c.POST('/threads/{thread_id}/runs', { headers, params: { path: { thread_id: THREAD_ID } }, body: RUN_BODY }),
  waitRun: (c, headers) =>
    c.POST('/threads/{thread_id}/runs/wait', { headers, params: { path: { thread_id: THREAD_ID } }, body: RUN_BODY }),
  getRun: (c, headers) =>
    c.GET('/threads/{thread_id}/runs/{run_id}', { headers, params: { path: { thread_id: THREAD_ID, run_id: RUN_ID } } }),
  deleteRun: (c, headers) =>
    c.DELETE('/threads/{thread_id}/runs/{run_id}', { headers, params: { path: { thread_id: THREAD_ID, run_id: RUN_ID } } }),
  joinRun: (c, headers) =>
    c.GET('/threads/{thread_id}/runs/{run_id}/join', { headers, params: { path: { thread_id: THREAD_ID, run_id: RUN_ID } } }),
  // A stream is read as text: its body is the stream's text, which the spec's EventStream schema describes.
  streamRun: (c, headers) =>
    c.POST('/threads/{thread_id}/runs/stream', {
      headers,
      params: { path: { thread_id: THREAD_ID } },
      body: { ...RUN_BODY, stream_mode: ['values', 'messages-tuple'] },
      parseAs: 'text',
    }),
  joinRunStream: (c, headers) =>
    c.GET('/threads/{thread_id}/runs/{run_id}/stream', {
      headers: { ...headers, 'Last-Event-ID': '-1' },
      params: { path: { thread_id: THREAD_ID, run_id: RUN_ID }, query: { stream_mode: ['values'] } },
      parseAs: 'text',
    }),
  streamStatelessRun: (c, headers) => c.POST('/runs/stream', { headers, body: { ...RUN_BODY, stream_mode: 'updates' }, parseAs: 'text' }),
  joinThreadStream: (c, headers) =>
    c.GET('/threads/{thread_id}/stream', {
      headers,
      params: { path: { thread_id: THREAD_ID }, query: { stream_mode: ['run_modes'] } },
      parseAs: 'text',
    }),
  sendThreadCommand: (c, headers) =>
    c.POST('/threads/{thread_id}/commands', {
      headers,
      params: { path: { thread_id: THREAD_ID } },
      body: { id: 1, method: 'run.start', params: { assistant_id: 'support', input: RUN_BODY.input } },
    }),
  streamThreadEvents: (c, headers) =>
    c.POST('/threads/{thread_id}/stream/events', {
      headers: { ...headers, 'Last-Event-ID': '12' },
      params: { path: { thread_id: THREAD_ID } },
      body: { channels: ['lifecycle', 'messages'], namespaces: [[]], depth: 1 },
      parseAs: 'text',
    }),
  // The WebSocket's GET as plain HTTP: the mock has no sockets, so it answers 426 (see mockStatus).
  connectThreadEvents: (c, headers) => c.GET('/threads/{thread_id}/stream/events', { headers, params: { path: { thread_id: THREAD_ID } } }),
  cancelRun: (c, headers) =>
    c.POST('/threads/{thread_id}/runs/{run_id}/cancel', {
      headers,
      params: { path: { thread_id: THREAD_ID, run_id: RUN_ID }, query: { wait: false, action: 'interrupt' } },
    }),
  cancelRuns: (c, headers) => c.POST('/runs/cancel', { headers, params: { query: { action: 'rollback' } }, body: { status: 'pending' } }),
  createStatelessRun: (c, headers) => c.POST('/runs', { headers, body: { ...RUN_BODY, on_completion: 'keep' } }),
  waitStatelessRun: (c, headers) => c.POST('/runs/wait', { headers, body: RUN_BODY }),
  createRunBatch: (c, headers) => c.POST('/runs/batch', { headers, body: [RUN_BODY, RUN_BODY] }),
  createAssistant: (c, headers) =>
    c.POST('/assistants', {
      headers,
      body: { graph_id: 'support', name: 'Refunds (EU)', config: { configurable: { model: 'gpt-4o-mini' } } },
    }),
  searchAssistants: (c, headers) =>
    c.POST('/assistants/search', { headers, body: { graph_id: 'support', name: 'refund', sort_by: 'name', sort_order: 'asc', limit: 20 } }),
  countAssistants: (c, headers) => c.POST('/assistants/count', { headers, body: { graph_id: 'support' } }),
  getAssistant: (c, headers) => c.GET('/assistants/{assistant_id}', { headers, params: { path: { assistant_id: ASSISTANT_ID } } }),
  updateAssistant: (c, headers) =>
    c.PATCH('/assistants/{assistant_id}', {
      headers,
      params: { path: { assistant_id: ASSISTANT_ID } },
      body: { metadata: { team: 'billing' } },
    }),
  deleteAssistant: (c, headers) =>
    c.DELETE('/assistants/{assistant_id}', { headers, params: { path: { assistant_id: ASSISTANT_ID }, query: { delete_threads: true } } }),
  listAssistantVersions: (c, headers) =>
    c.POST('/assistants/{assistant_id}/versions', { headers, params: { path: { assistant_id: ASSISTANT_ID } }, body: { limit: 10 } }),
  setLatestAssistantVersion: (c, headers) =>
    c.POST('/assistants/{assistant_id}/latest', { headers, params: { path: { assistant_id: ASSISTANT_ID } }, body: { version: 1 } }),
  getAssistantGraph: (c, headers) =>
    c.GET('/assistants/{assistant_id}/graph', { headers, params: { path: { assistant_id: 'support' }, query: { xray: 'true' } } }),
  getAssistantSchemas: (c, headers) =>
    c.GET('/assistants/{assistant_id}/schemas', { headers, params: { path: { assistant_id: 'support' } } }),
  getAssistantSubgraphs: (c, headers) =>
    c.GET('/assistants/{assistant_id}/subgraphs', { headers, params: { path: { assistant_id: ASSISTANT_ID }, query: { recurse: true } } }),
  getAssistantSubgraphsInNamespace: (c, headers) =>
    c.GET('/assistants/{assistant_id}/subgraphs/{namespace}', {
      headers,
      params: { path: { assistant_id: ASSISTANT_ID, namespace: 'researcher' } },
    }),
  getHealth: (c, headers) => c.GET('/ok', { headers }),
  getServerInfo: (c, headers) => c.GET('/info', { headers }),
  putStoreItem: (c, headers) =>
    c.PUT('/store/items', {
      headers,
      body: { namespace: ['users', 'u-42', 'memories'], key: 'favourite-food', value: { text: 'Likes ramen' } },
    }),
  getStoreItem: (c, headers) =>
    c.GET('/store/items', { headers, params: { query: { namespace: 'users.u-42.memories', key: 'favourite-food', refresh_ttl: false } } }),
  deleteStoreItem: (c, headers) =>
    c.DELETE('/store/items', { headers, body: { namespace: ['users', 'u-42', 'memories'], key: 'favourite-food' } }),
  searchStoreItems: (c, headers) =>
    c.POST('/store/items/search', {
      headers,
      body: { namespace_prefix: ['users', 'u-42'], filter: { kind: 'preference' }, query: 'food' },
    }),
  listStoreNamespaces: (c, headers) => c.POST('/store/namespaces', { headers, body: { prefix: ['users'], max_depth: 2 } }),
  createCron: (c, headers) =>
    c.POST('/runs/crons', { headers, body: { assistant_id: 'support', schedule: '0 7 * * *', timezone: 'Europe/Lisbon' } }),
  createThreadCron: (c, headers) =>
    c.POST('/threads/{thread_id}/runs/crons', {
      headers,
      params: { path: { thread_id: THREAD_ID } },
      body: { assistant_id: 'support', schedule: '0 9 * * mon', input: RUN_BODY.input },
    }),
  searchCrons: (c, headers) =>
    c.POST('/runs/crons/search', { headers, body: { assistant_id: 'support', enabled: true, sort_by: 'next_run_date' } }),
  countCrons: (c, headers) => c.POST('/runs/crons/count', { headers, body: { thread_id: THREAD_ID } }),
  updateCron: (c, headers) =>
    c.PATCH('/runs/crons/{cron_id}', { headers, params: { path: { cron_id: CRON_ID } }, body: { enabled: false } }),
  deleteCron: (c, headers) => c.DELETE('/runs/crons/{cron_id}', { headers, params: { path: { cron_id: CRON_ID } } }),
};

const suites = [
  {
    api: 'control-plane',
    calls: controlPlaneCalls,
    client: () => createControlPlaneClient({ baseUrl: urls['control-plane']!, apiKey: 'contract-key', retry: false }),
  },
  { api: 'agent-server', calls: agentServerCalls, client: () => createAgentServerClient({ baseUrl: urls['agent-server']!, retry: false }) },
] as const;

for (const suite of suites) {
  const spec = loadBundle(suite.api);
  const validate = createValidator(spec);
  const operations = listOperations(spec);

  describe(`${suite.api} client against the mock`, () => {
    it('has a typed call for every operation of the spec', () => {
      expect(Object.keys(suite.calls).sort()).toEqual(operations.map((op) => op.operationId).sort());
    });

    for (const op of operations) {
      for (const status of Object.keys(op.operation.responses)) {
        const served = mockStatus(status);
        it(`${op.operationId} → ${status}${served === status ? '' : ` (${served}: the mock has no sockets)`}`, async () => {
          const call = suite.calls[op.operationId] as Call<unknown>;
          const result = await call(suite.client(), { Prefer: `code=${status}` });
          expect(result.response.status).toBe(Number(served));
          const body = served.startsWith('2') ? result.data : result.error;
          expect(served.startsWith('2') ? result.error : result.data).toBeUndefined();
          const schema = responseSchema(spec, op, served);
          if (schema) expect(validate(schema, body).errors).toBe('');
          else expect(body, 'an answer without a body gives no data').toBeUndefined();
        });
      }
    }
  });
}
