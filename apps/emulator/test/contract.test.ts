// The client packages' contract suite against the emulator: every operation of both specs, for
// every status the spec documents — produced by real situations (a missing key, a missing record,
// a duplicate, a bad field, a body over the limit), not by a `Prefer` header — and every answer
// validated against the spec by the test as well as by the emulator. The operations' own statuses
// go through the real typed clients; the transport-level ones every operation shares (400, 413,
// 415, 431) are sent raw to each operation's path, as no typed client would send them.

import { createValidator, listOperations, loadBundle } from '@agentplane/openapi-toolkit';
import { describe, expect, it } from 'vitest';
import { RUN_DELAY_MS } from '../src/agent-server/protocol/thread-protocol.js';
import type { ApiName, RawRequest } from './support/harness.js';
import { rawRequest, rawSocketExchange, socketHandshake, startTestEmulator, useEmulator } from './support/harness.js';

const f = useEmulator({
  apiKey: 'key-a',
  config: {
    tenants: [
      {
        id: 'tenant-a',
        api_keys: ['key-a'],
        oauth_providers: [
          {
            provider_id: 'github',
            name: 'GitHub',
            client_id: 'Iv1.a',
            auth_url: 'https://github.com/login/oauth/authorize',
            token_url: 'https://github.com/login/oauth/access_token',
            uses_pkce: true,
          },
        ],
        sandbox_pools: [{ name: 'python-pool', template_name: 'python-3-12', replicas: 2 }],
      },
    ],
    agent_server: { api_keys: ['agent-key'] },
    graphs: {
      agent: { replies: [{ text: 'You said: {{input}}' }] },
      // A reply that takes ten minutes: a run on this graph stays running until it is cancelled.
      slow: { replies: [{ text: 'eventually' }], stream: { chunk: 'whole', delay_ms: 600_000 } },
    },
  },
});

type Result = { response: Response; data?: unknown; error?: unknown };
const MISSING = '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50';

async function deployment() {
  const { data } = await f.control.POST('/v2/deployments', {
    body: {
      name: `d-${crypto.randomUUID().slice(0, 8)}`,
      source: 'external_container',
      source_revision_config: { image_uri: 'registry/app:1' },
    },
  });
  return data!;
}
const agent = () => f.agent; // created with no key: the 401 cases
const agentWithKey = () => ({ headers: { 'X-Api-Key': 'agent-key' } });
async function assistant() {
  const { data } = await agent().POST('/assistants', { ...agentWithKey(), body: { graph_id: 'agent', metadata: { contract: true } } });
  return data!;
}
const assistantPath = async () => ({ assistant_id: (await assistant()).assistant_id });
async function thread() {
  const { data } = await agent().POST('/threads', {
    ...agentWithKey(),
    body: { supersteps: [{ updates: [{ values: { messages: [{ type: 'human', content: 'hi' }] }, as_node: '__start__' }] }] },
  });
  return data!;
}

const ask = (content: string) => ({ messages: [{ type: 'human' as const, content }] });

/**
 * A streamed answer read to its end: a 200 is `text/event-stream` whose first event is `metadata`
 * (the emulator checks every event against the spec itself, in test mode); other statuses are
 * JSON, as any operation's.
 */
async function streamed(call: Promise<{ response: Response; data?: unknown; error?: unknown }>) {
  const { response, data, error } = await call;
  if (response.status !== 200) return { response, data: undefined, error };
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const text = await new Response(data as ReadableStream).text();
  expect(text).toMatch(/^event: metadata\ndata: /);
  return { response, data: undefined, error: undefined };
}
const asStream = { parseAs: 'stream' as const };
/** A thread whose run is still running (the slow graph), and that run. */
async function busyThread() {
  const t = await thread();
  const { data: run } = await agent().POST('/threads/{thread_id}/runs', {
    ...agentWithKey(),
    params: { path: { thread_id: t.thread_id } },
    body: { assistant_id: 'slow', input: ask('hello') },
  });
  return { thread: t, run: run! };
}
/** A thread with one finished run, and that run. */
async function ranThread() {
  const t = await thread();
  const { data: run } = await agent().POST('/threads/{thread_id}/runs', {
    ...agentWithKey(),
    params: { path: { thread_id: t.thread_id } },
    body: { assistant_id: 'agent', input: ask('hello') },
  });
  await agent().GET('/threads/{thread_id}/runs/{run_id}/join', {
    ...agentWithKey(),
    params: { path: { thread_id: t.thread_id, run_id: run!.run_id } },
  });
  return { thread: t, run: run! };
}
const runPath = (r: { thread: { thread_id: string }; run: { run_id: string } }) => ({
  path: { thread_id: r.thread.thread_id, run_id: r.run.run_id },
});

/** One real scenario per documented status of every operation. */
const scenarios: Record<string, Record<string, () => Promise<Result>>> = {
  'control-plane': {
    'createDeployment 201': async () =>
      f.control.POST('/v2/deployments', {
        body: {
          name: `d-${crypto.randomUUID().slice(0, 8)}`,
          source: 'external_container',
          source_revision_config: { image_uri: 'r/a:1' },
        },
      }),
    'createDeployment 401': async () =>
      f
        .controlAs('wrong')
        .POST('/v2/deployments', { body: { name: 'x', source: 'external_container', source_revision_config: { image_uri: 'r/a:1' } } }),
    'createDeployment 422': async () => f.control.POST('/v2/deployments', { body: { name: 'x', source: 'git_host' } }),
    'getDeployment 200': async () =>
      f.control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: (await deployment()).id } } }),
    'getDeployment 401': async () =>
      f.controlAs('wrong').GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: MISSING } } }),
    'getDeployment 404': async () => f.control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: MISSING } } }),
    'getDeployment 422': async () => f.control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: 'x' } } }),
    'updateDeployment 200': async () =>
      f.control.PATCH('/v2/deployments/{deployment_id}', {
        params: { path: { deployment_id: (await deployment()).id } },
        body: { source_revision_config: { image_uri: 'r/a:2' } },
      }),
    'updateDeployment 401': async () =>
      f.controlAs('wrong').PATCH('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: MISSING } }, body: {} }),
    'updateDeployment 404': async () =>
      f.control.PATCH('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: MISSING } }, body: {} }),
    'updateDeployment 422': async () =>
      f.control.PATCH('/v2/deployments/{deployment_id}', {
        params: { path: { deployment_id: MISSING } },
        body: { source: 'git_host' } as never,
      }),
    'getRevision 200': async () => {
      const d = await deployment();
      return f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
        params: { path: { deployment_id: d.id, revision_id: d.latest_revision_id } },
      });
    },
    'getRevision 401': async () =>
      f.controlAs('wrong').GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
        params: { path: { deployment_id: MISSING, revision_id: MISSING } },
      }),
    'getRevision 404': async () =>
      f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
        params: { path: { deployment_id: (await deployment()).id, revision_id: MISSING } },
      }),
    'getRevision 422': async () =>
      f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
        params: { path: { deployment_id: MISSING, revision_id: 'nope' } },
      }),
    'listDeployments 200': async () => {
      await deployment();
      return f.control.GET('/v2/deployments', { params: { query: { name_contains: 'D-', limit: 5 } } });
    },
    'listDeployments 401': async () => f.controlAs('wrong').GET('/v2/deployments', {}),
    'listDeployments 422': async () => f.control.GET('/v2/deployments', { params: { query: { limit: 101 } } }),
    'deleteDeployment 204': async () =>
      f.control.DELETE('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: (await deployment()).id } } }),
    'deleteDeployment 401': async () =>
      f.controlAs('wrong').DELETE('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: MISSING } } }),
    'deleteDeployment 404': async () =>
      f.control.DELETE('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: MISSING } } }),
    'deleteDeployment 422': async () => f.control.DELETE('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: 'x' } } }),
    'listRevisions 200': async () =>
      f.control.GET('/v2/deployments/{deployment_id}/revisions', {
        params: { path: { deployment_id: (await deployment()).id }, query: { status: 'QUEUED' } },
      }),
    'listRevisions 401': async () =>
      f.controlAs('wrong').GET('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: MISSING } } }),
    'listRevisions 404': async () =>
      f.control.GET('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: MISSING } } }),
    'listRevisions 422': async () =>
      f.control.GET('/v2/deployments/{deployment_id}/revisions', {
        params: { path: { deployment_id: MISSING }, query: { status: 'deployed' as never } },
      }),
    'createRevision 201': async () =>
      f.control.POST('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: (await deployment()).id } } }),
    'createRevision 401': async () =>
      f.controlAs('wrong').POST('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: MISSING } } }),
    'createRevision 404': async () =>
      f.control.POST('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: MISSING } } }),
    'createRevision 422': async () =>
      f.control.POST('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: 'x' } } }),
    'redeployRevision 200': async () => {
      const d = await deployment();
      return f.control.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
        params: { path: { deployment_id: d.id, revision_id: d.latest_revision_id } },
      });
    },
    'redeployRevision 401': async () =>
      f.controlAs('wrong').POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
        params: { path: { deployment_id: MISSING, revision_id: MISSING } },
      }),
    'redeployRevision 404': async () =>
      f.control.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
        params: { path: { deployment_id: (await deployment()).id, revision_id: MISSING } },
      }),
    'redeployRevision 422': async () =>
      f.control.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
        params: { path: { deployment_id: MISSING, revision_id: 'nope' } },
      }),
    'listRevisionLogs 200': async () => {
      const d = await deployment();
      f.advance(60_000);
      return f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
        params: { path: { deployment_id: d.id, revision_id: d.latest_revision_id }, query: { type: 'deploy', order: 'desc', limit: 3 } },
      });
    },
    'listRevisionLogs 401': async () =>
      f.controlAs('wrong').GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
        params: { path: { deployment_id: MISSING, revision_id: MISSING }, query: { type: 'build' } },
      }),
    'listRevisionLogs 404': async () =>
      f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
        params: { path: { deployment_id: MISSING, revision_id: MISSING }, query: { type: 'build' } },
      }),
    'listRevisionLogs 422': async () => {
      const d = await deployment();
      return f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
        params: { path: { deployment_id: d.id, revision_id: d.latest_revision_id }, query: { type: 'build', offset: 'not-a-cursor' } },
      });
    },
    'getOauthProvider 200': async () => f.control.GET('/v2/auth/providers/{provider_id}', { params: { path: { provider_id: 'github' } } }),
    'getOauthProvider 401': async () =>
      f.controlAs('wrong').GET('/v2/auth/providers/{provider_id}', { params: { path: { provider_id: 'github' } } }),
    'getOauthProvider 404': async () => f.control.GET('/v2/auth/providers/{provider_id}', { params: { path: { provider_id: 'gitlab' } } }),
    'getOauthProvider 422': async () =>
      f.control.GET('/v2/auth/providers/{provider_id}', { params: { path: { provider_id: 'Not A Slug' } } }),
    'getSandboxPool 200': async () => f.control.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'python-pool' } } }),
    'getSandboxPool 401': async () => f.controlAs('wrong').GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'python-pool' } } }),
    'getSandboxPool 404': async () => f.control.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'node-pool' } } }),
    'getSandboxPool 422': async () => f.control.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'Python_Pool' } } }),
  },
  'agent-server': {
    'createThread 200': async () => agent().POST('/threads', { ...agentWithKey(), body: { metadata: { graph_id: 'support' } } }),
    'createThread 401': async () => agent().POST('/threads', { body: {} }),
    'createThread 409': async () => agent().POST('/threads', { ...agentWithKey(), body: { thread_id: (await thread()).thread_id } }),
    'createThread 422': async () =>
      agent().POST('/threads', { ...agentWithKey(), body: { supersteps: [{ updates: [{ values: {} } as never] }] } }),
    'searchThreads 200': async () => agent().POST('/threads/search', { ...agentWithKey(), body: { metadata: { graph_id: 'support' } } }),
    'searchThreads 401': async () => agent().POST('/threads/search', { body: {} }),
    'searchThreads 422': async () => agent().POST('/threads/search', { ...agentWithKey(), body: { limit: 0 } }),
    'getThread 200': async () =>
      agent().GET('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: (await thread()).thread_id } } }),
    'getThread 401': async () => agent().GET('/threads/{thread_id}', { params: { path: { thread_id: MISSING } } }),
    'getThread 404': async () => agent().GET('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: MISSING } } }),
    'getThread 422': async () => agent().GET('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: 'x' } } }),
    'copyThread 200': async () =>
      agent().POST('/threads/{thread_id}/copy', { ...agentWithKey(), params: { path: { thread_id: (await thread()).thread_id } } }),
    'copyThread 401': async () => agent().POST('/threads/{thread_id}/copy', { params: { path: { thread_id: MISSING } } }),
    'copyThread 404': async () =>
      agent().POST('/threads/{thread_id}/copy', { ...agentWithKey(), params: { path: { thread_id: MISSING } } }),
    'copyThread 422': async () => agent().POST('/threads/{thread_id}/copy', { ...agentWithKey(), params: { path: { thread_id: 'x' } } }),
    'getThreadState 200': async () =>
      agent().GET('/threads/{thread_id}/state', { ...agentWithKey(), params: { path: { thread_id: (await thread()).thread_id } } }),
    'getThreadState 401': async () => agent().GET('/threads/{thread_id}/state', { params: { path: { thread_id: MISSING } } }),
    'getThreadState 404': async () =>
      agent().GET('/threads/{thread_id}/state', { ...agentWithKey(), params: { path: { thread_id: MISSING } } }),
    'getThreadState 422': async () =>
      agent().GET('/threads/{thread_id}/state', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING }, query: { subgraphs: 'maybe' as never } },
      }),
    'getThreadStateAtCheckpoint 200': async () => {
      const t = await thread();
      const { data } = await agent().GET('/threads/{thread_id}/state', { ...agentWithKey(), params: { path: { thread_id: t.thread_id } } });
      return agent().GET('/threads/{thread_id}/state/{checkpoint_id}', {
        ...agentWithKey(),
        params: { path: { thread_id: t.thread_id, checkpoint_id: data!.checkpoint_id! } },
      });
    },
    'getThreadStateAtCheckpoint 401': async () =>
      agent().GET('/threads/{thread_id}/state/{checkpoint_id}', { params: { path: { thread_id: MISSING, checkpoint_id: MISSING } } }),
    'getThreadStateAtCheckpoint 404': async () =>
      agent().GET('/threads/{thread_id}/state/{checkpoint_id}', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id, checkpoint_id: MISSING } },
      }),
    'getThreadStateAtCheckpoint 422': async () =>
      agent().GET('/threads/{thread_id}/state/{checkpoint_id}', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING, checkpoint_id: 'x' } },
      }),
    'getThreadHistory 200': async () =>
      agent().POST('/threads/{thread_id}/history', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { limit: 5 },
      }),
    'getThreadHistory 401': async () =>
      agent().POST('/threads/{thread_id}/history', { params: { path: { thread_id: MISSING } }, body: {} }),
    'getThreadHistory 404': async () =>
      agent().POST('/threads/{thread_id}/history', { ...agentWithKey(), params: { path: { thread_id: MISSING } }, body: {} }),
    'getThreadHistory 422': async () =>
      agent().POST('/threads/{thread_id}/history', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { before: 7 } as never,
      }),
    'updateThread 200': async () =>
      agent().PATCH('/threads/{thread_id}', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { metadata: { tier: 2 } },
      }),
    'updateThread 204': async () =>
      agent().PATCH('/threads/{thread_id}', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id }, header: { Prefer: 'return=minimal' } },
        body: { metadata: { tier: 3 } },
      }),
    'updateThread 401': async () => agent().PATCH('/threads/{thread_id}', { params: { path: { thread_id: MISSING } }, body: {} }),
    'updateThread 404': async () =>
      agent().PATCH('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: MISSING } }, body: {} }),
    'updateThread 422': async () =>
      agent().PATCH('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: MISSING } }, body: { ttl: 0 } }),
    'deleteThread 204': async () =>
      agent().DELETE('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: (await thread()).thread_id } } }),
    'deleteThread 401': async () => agent().DELETE('/threads/{thread_id}', { params: { path: { thread_id: MISSING } } }),
    'deleteThread 404': async () => agent().DELETE('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: MISSING } } }),
    'deleteThread 422': async () => agent().DELETE('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: 'x' } } }),
    'countThreads 200': async () => agent().POST('/threads/count', { ...agentWithKey(), body: { metadata: { graph_id: 'support' } } }),
    'countThreads 401': async () => agent().POST('/threads/count', { body: {} }),
    'countThreads 422': async () => agent().POST('/threads/count', { ...agentWithKey(), body: { ids: [] } as never }),
    'pruneThreads 200': async () =>
      agent().POST('/threads/prune', { ...agentWithKey(), body: { thread_ids: [(await thread()).thread_id], strategy: 'keep_latest' } }),
    'pruneThreads 401': async () => agent().POST('/threads/prune', { body: { thread_ids: [MISSING] } }),
    'pruneThreads 422': async () => agent().POST('/threads/prune', { ...agentWithKey(), body: { thread_ids: [] } }),
    'updateThreadState 200': async () =>
      agent().POST('/threads/{thread_id}/state', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { values: { topic: 'x' }, as_node: 'agent' },
      }),
    'updateThreadState 409': async () =>
      agent().POST('/threads/{thread_id}/state', {
        ...agentWithKey(),
        params: { path: { thread_id: (await busyThread()).thread.thread_id } },
        body: { values: { topic: 'x' }, as_node: 'agent' },
      }),
    'updateThreadState 401': async () =>
      agent().POST('/threads/{thread_id}/state', { params: { path: { thread_id: MISSING } }, body: { values: {} } }),
    'updateThreadState 404': async () =>
      agent().POST('/threads/{thread_id}/state', { ...agentWithKey(), params: { path: { thread_id: MISSING } }, body: { values: {} } }),
    'updateThreadState 422': async () =>
      agent().POST('/threads/{thread_id}/state', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { values: { messages: [{ type: 'robot' }] } } as never,
      }),
    'patchThreadState 204': async () =>
      agent().PATCH('/threads/{thread_id}/state', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { metadata: { reviewed: true } },
      }),
    'patchThreadState 401': async () =>
      agent().PATCH('/threads/{thread_id}/state', { params: { path: { thread_id: MISSING } }, body: { metadata: {} } }),
    'patchThreadState 404': async () =>
      agent().PATCH('/threads/{thread_id}/state', { ...agentWithKey(), params: { path: { thread_id: MISSING } }, body: { metadata: {} } }),
    'patchThreadState 422': async () =>
      agent().PATCH('/threads/{thread_id}/state', { ...agentWithKey(), params: { path: { thread_id: MISSING } }, body: {} as never }),
    'getThreadStateAtCheckpointObject 200': async () => {
      const t = await thread();
      const { data } = await agent().GET('/threads/{thread_id}/state', { ...agentWithKey(), params: { path: { thread_id: t.thread_id } } });
      return agent().POST('/threads/{thread_id}/state/checkpoint', {
        ...agentWithKey(),
        params: { path: { thread_id: t.thread_id } },
        body: { checkpoint: data!.checkpoint! },
      });
    },
    'getThreadStateAtCheckpointObject 401': async () =>
      agent().POST('/threads/{thread_id}/state/checkpoint', {
        params: { path: { thread_id: MISSING } },
        body: { checkpoint: { checkpoint_id: MISSING } },
      }),
    'getThreadStateAtCheckpointObject 404': async () =>
      agent().POST('/threads/{thread_id}/state/checkpoint', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { checkpoint: { checkpoint_id: MISSING } },
      }),
    'getThreadStateAtCheckpointObject 422': async () =>
      agent().POST('/threads/{thread_id}/state/checkpoint', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { checkpoint: { checkpoint_id: 'x' } },
      }),
    'createRun 200': async () =>
      agent().POST('/threads/{thread_id}/runs', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { assistant_id: 'agent', input: ask('hi') },
      }),
    'createRun 401': async () =>
      agent().POST('/threads/{thread_id}/runs', { params: { path: { thread_id: MISSING } }, body: { assistant_id: 'agent' } }),
    'createRun 404': async () =>
      agent().POST('/threads/{thread_id}/runs', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { assistant_id: 'agent' },
      }),
    'createRun 409': async () =>
      agent().POST('/threads/{thread_id}/runs', {
        ...agentWithKey(),
        params: { path: { thread_id: (await busyThread()).thread.thread_id } },
        body: { assistant_id: 'agent', input: ask('me too') },
      }),
    'createRun 422': async () =>
      agent().POST('/threads/{thread_id}/runs', { ...agentWithKey(), params: { path: { thread_id: MISSING } }, body: {} as never }),
    'waitRun 200': async () =>
      agent().POST('/threads/{thread_id}/runs/wait', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { assistant_id: 'agent', input: ask('hi') },
      }),
    'waitRun 401': async () =>
      agent().POST('/threads/{thread_id}/runs/wait', { params: { path: { thread_id: MISSING } }, body: { assistant_id: 'agent' } }),
    'waitRun 404': async () =>
      agent().POST('/threads/{thread_id}/runs/wait', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { assistant_id: 'billing' },
      }),
    'waitRun 409': async () =>
      agent().POST('/threads/{thread_id}/runs/wait', {
        ...agentWithKey(),
        params: { path: { thread_id: (await busyThread()).thread.thread_id } },
        body: { assistant_id: 'agent', input: ask('me too') },
      }),
    'waitRun 422': async () =>
      agent().POST('/threads/{thread_id}/runs/wait', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { assistant_id: 'agent', input: { messages: [{ role: 'user', type: 'ai', content: 'x' }] } } as never,
      }),
    'listRuns 200': async () =>
      agent().GET('/threads/{thread_id}/runs', {
        ...agentWithKey(),
        params: { path: { thread_id: (await ranThread()).thread.thread_id } },
      }),
    'listRuns 401': async () => agent().GET('/threads/{thread_id}/runs', { params: { path: { thread_id: MISSING } } }),
    'listRuns 404': async () => agent().GET('/threads/{thread_id}/runs', { ...agentWithKey(), params: { path: { thread_id: MISSING } } }),
    'listRuns 422': async () =>
      agent().GET('/threads/{thread_id}/runs', { ...agentWithKey(), params: { path: { thread_id: MISSING }, query: { limit: 1001 } } }),
    'getRun 200': async () => agent().GET('/threads/{thread_id}/runs/{run_id}', { ...agentWithKey(), params: runPath(await ranThread()) }),
    'getRun 401': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}', { params: { path: { thread_id: MISSING, run_id: MISSING } } }),
    'getRun 404': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id, run_id: MISSING } },
      }),
    'getRun 422': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}', { ...agentWithKey(), params: { path: { thread_id: MISSING, run_id: 'x' } } }),
    'deleteRun 204': async () =>
      agent().DELETE('/threads/{thread_id}/runs/{run_id}', { ...agentWithKey(), params: runPath(await ranThread()) }),
    'deleteRun 401': async () =>
      agent().DELETE('/threads/{thread_id}/runs/{run_id}', { params: { path: { thread_id: MISSING, run_id: MISSING } } }),
    'deleteRun 404': async () =>
      agent().DELETE('/threads/{thread_id}/runs/{run_id}', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING, run_id: MISSING } },
      }),
    'deleteRun 409': async () =>
      agent().DELETE('/threads/{thread_id}/runs/{run_id}', { ...agentWithKey(), params: runPath(await busyThread()) }),
    'deleteRun 422': async () =>
      agent().DELETE('/threads/{thread_id}/runs/{run_id}', { ...agentWithKey(), params: { path: { thread_id: 'x', run_id: MISSING } } }),
    'joinRun 200': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}/join', { ...agentWithKey(), params: runPath(await ranThread()) }),
    'joinRun 401': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}/join', { params: { path: { thread_id: MISSING, run_id: MISSING } } }),
    'joinRun 404': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}/join', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING, run_id: MISSING } },
      }),
    'joinRun 422': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}/join', { ...agentWithKey(), params: { path: { thread_id: MISSING, run_id: 'x' } } }),
    'cancelRun 202': async () =>
      agent().POST('/threads/{thread_id}/runs/{run_id}/cancel', { ...agentWithKey(), params: runPath(await busyThread()) }),
    'cancelRun 204': async () =>
      agent().POST('/threads/{thread_id}/runs/{run_id}/cancel', {
        ...agentWithKey(),
        params: { ...runPath(await busyThread()), query: { wait: true, action: 'rollback' } },
      }),
    'cancelRun 401': async () =>
      agent().POST('/threads/{thread_id}/runs/{run_id}/cancel', { params: { path: { thread_id: MISSING, run_id: MISSING } } }),
    'cancelRun 404': async () =>
      agent().POST('/threads/{thread_id}/runs/{run_id}/cancel', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING, run_id: MISSING } },
      }),
    'cancelRun 422': async () =>
      agent().POST('/threads/{thread_id}/runs/{run_id}/cancel', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING, run_id: MISSING }, query: { action: 'stop' as never } },
      }),
    'cancelRuns 204': async () => agent().POST('/runs/cancel', { ...agentWithKey(), body: { run_ids: [(await busyThread()).run.run_id] } }),
    'cancelRuns 401': async () => agent().POST('/runs/cancel', { body: { status: 'pending' } }),
    'cancelRuns 404': async () => agent().POST('/runs/cancel', { ...agentWithKey(), body: { run_ids: [MISSING] } }),
    'cancelRuns 422': async () => agent().POST('/runs/cancel', { ...agentWithKey(), body: {} as never }),
    'streamRun 200': async () =>
      streamed(
        agent().POST('/threads/{thread_id}/runs/stream', {
          ...agentWithKey(),
          ...asStream,
          params: { path: { thread_id: (await thread()).thread_id } },
          body: { assistant_id: 'agent', input: ask('hi'), stream_mode: ['values', 'messages-tuple'] },
        }),
      ),
    'streamRun 401': async () =>
      agent().POST('/threads/{thread_id}/runs/stream', { params: { path: { thread_id: MISSING } }, body: { assistant_id: 'agent' } }),
    'streamRun 404': async () =>
      agent().POST('/threads/{thread_id}/runs/stream', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { assistant_id: 'agent' },
      }),
    'streamRun 409': async () =>
      agent().POST('/threads/{thread_id}/runs/stream', {
        ...agentWithKey(),
        params: { path: { thread_id: (await busyThread()).thread.thread_id } },
        body: { assistant_id: 'agent', input: ask('me too') },
      }),
    'streamRun 422': async () =>
      agent().POST('/threads/{thread_id}/runs/stream', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { assistant_id: 'agent', stream_mode: 'bogus' } as never,
      }),
    'streamStatelessRun 200': async () =>
      streamed(agent().POST('/runs/stream', { ...agentWithKey(), ...asStream, body: { assistant_id: 'agent', input: ask('hi') } })),
    'streamStatelessRun 401': async () => agent().POST('/runs/stream', { body: { assistant_id: 'agent' } }),
    'streamStatelessRun 404': async () => agent().POST('/runs/stream', { ...agentWithKey(), body: { assistant_id: 'billing' } }),
    'streamStatelessRun 422': async () => agent().POST('/runs/stream', { ...agentWithKey(), body: { assistant_id: '' } }),
    'joinRunStream 200': async () => {
      // The slow run streams for minutes: this client reads its first event, then leaves.
      const { response, data } = await agent().GET('/threads/{thread_id}/runs/{run_id}/stream', {
        ...agentWithKey(),
        ...asStream,
        params: runPath(await busyThread()),
      });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const reader = (data as unknown as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^event: metadata\ndata: /);
      await reader.cancel();
      return { response, data: undefined, error: undefined };
    },
    'joinRunStream 401': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}/stream', { params: { path: { thread_id: MISSING, run_id: MISSING } } }),
    'joinRunStream 404': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}/stream', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id, run_id: MISSING } },
      }),
    'joinRunStream 422': async () =>
      agent().GET('/threads/{thread_id}/runs/{run_id}/stream', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING, run_id: 'x' } },
      }),
    'joinThreadStream 200': async () => {
      const { thread: busy } = await busyThread();
      const answer = agent().GET('/threads/{thread_id}/stream', {
        ...agentWithKey(),
        ...asStream,
        params: { path: { thread_id: busy.thread_id } },
      });
      // A thread's stream lasts as long as the thread: deleting it ends the stream.
      const { response, data } = await answer;
      await agent().DELETE('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: busy.thread_id } } });
      return streamed(Promise.resolve({ response, data }));
    },
    'joinThreadStream 401': async () => agent().GET('/threads/{thread_id}/stream', { params: { path: { thread_id: MISSING } } }),
    'joinThreadStream 404': async () =>
      agent().GET('/threads/{thread_id}/stream', { ...agentWithKey(), params: { path: { thread_id: MISSING } } }),
    'joinThreadStream 422': async () =>
      agent().GET('/threads/{thread_id}/stream', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING }, query: { stream_mode: ['lifecycle'] as never } },
      }),
    'createStatelessRun 200': async () => agent().POST('/runs', { ...agentWithKey(), body: { assistant_id: 'agent', input: ask('hi') } }),
    'createStatelessRun 401': async () => agent().POST('/runs', { body: { assistant_id: 'agent' } }),
    'createStatelessRun 404': async () => agent().POST('/runs', { ...agentWithKey(), body: { assistant_id: MISSING } }),
    'createStatelessRun 422': async () =>
      agent().POST('/runs', { ...agentWithKey(), body: { assistant_id: 'agent', on_completion: 'complete' } as never }),
    'waitStatelessRun 200': async () =>
      agent().POST('/runs/wait', { ...agentWithKey(), body: { assistant_id: 'agent', input: ask('hi') } }),
    'waitStatelessRun 401': async () => agent().POST('/runs/wait', { body: { assistant_id: 'agent' } }),
    'waitStatelessRun 404': async () => agent().POST('/runs/wait', { ...agentWithKey(), body: { assistant_id: 'billing' } }),
    'waitStatelessRun 422': async () => agent().POST('/runs/wait', { ...agentWithKey(), body: { assistant_id: '' } }),
    'createRunBatch 200': async () =>
      agent().POST('/runs/batch', {
        ...agentWithKey(),
        body: [
          { assistant_id: 'agent', input: ask('a') },
          { assistant_id: 'agent', input: ask('b') },
        ],
      }),
    'createRunBatch 401': async () => agent().POST('/runs/batch', { body: [{ assistant_id: 'agent' }] }),
    'createRunBatch 404': async () =>
      agent().POST('/runs/batch', { ...agentWithKey(), body: [{ assistant_id: 'agent' }, { assistant_id: 'billing' }] }),
    'createRunBatch 422': async () => agent().POST('/runs/batch', { ...agentWithKey(), body: [] }),
    'createAssistant 200': async () =>
      agent().POST('/assistants', { ...agentWithKey(), body: { graph_id: 'agent', name: 'Contract', config: { recursion_limit: 10 } } }),
    'createAssistant 401': async () => agent().POST('/assistants', { body: { graph_id: 'agent' } }),
    'createAssistant 404': async () => agent().POST('/assistants', { ...agentWithKey(), body: { graph_id: 'not-served' } }),
    'createAssistant 409': async () =>
      agent().POST('/assistants', { ...agentWithKey(), body: { graph_id: 'agent', assistant_id: (await assistant()).assistant_id } }),
    'createAssistant 422': async () => agent().POST('/assistants', { ...agentWithKey(), body: {} as never }),
    'searchAssistants 200': async () =>
      agent().POST('/assistants/search', { ...agentWithKey(), body: { graph_id: 'agent', select: ['name'], sort_by: 'name' } }),
    'searchAssistants 401': async () => agent().POST('/assistants/search', { body: {} }),
    'searchAssistants 422': async () => agent().POST('/assistants/search', { ...agentWithKey(), body: { sort_by: 'version' as never } }),
    'countAssistants 200': async () => agent().POST('/assistants/count', { ...agentWithKey(), body: { metadata: { contract: true } } }),
    'countAssistants 401': async () => agent().POST('/assistants/count', { body: {} }),
    'countAssistants 422': async () => agent().POST('/assistants/count', { ...agentWithKey(), body: { status: 'idle' } as never }),
    'getAssistant 200': async () =>
      agent().GET('/assistants/{assistant_id}', { ...agentWithKey(), params: { path: { assistant_id: 'agent' } } }),
    'getAssistant 401': async () => agent().GET('/assistants/{assistant_id}', { params: { path: { assistant_id: MISSING } } }),
    'getAssistant 404': async () =>
      agent().GET('/assistants/{assistant_id}', { ...agentWithKey(), params: { path: { assistant_id: MISSING } } }),
    'getAssistant 422': async () =>
      agent().GET('/assistants/{assistant_id}', { ...agentWithKey(), params: { path: { assistant_id: 'not an id' } } }),
    'updateAssistant 200': async () =>
      agent().PATCH('/assistants/{assistant_id}', {
        ...agentWithKey(),
        params: { path: await assistantPath() },
        body: { metadata: { v: 2 } },
      }),
    'updateAssistant 401': async () =>
      agent().PATCH('/assistants/{assistant_id}', { params: { path: { assistant_id: MISSING } }, body: {} }),
    'updateAssistant 404': async () =>
      agent().PATCH('/assistants/{assistant_id}', {
        ...agentWithKey(),
        params: { path: await assistantPath() },
        body: { graph_id: 'gone' },
      }),
    'updateAssistant 422': async () =>
      agent().PATCH('/assistants/{assistant_id}', { ...agentWithKey(), params: { path: { assistant_id: MISSING } }, body: { name: '' } }),
    'deleteAssistant 204': async () =>
      agent().DELETE('/assistants/{assistant_id}', {
        ...agentWithKey(),
        params: { path: await assistantPath(), query: { delete_threads: true } },
      }),
    'deleteAssistant 401': async () => agent().DELETE('/assistants/{assistant_id}', { params: { path: { assistant_id: MISSING } } }),
    'deleteAssistant 404': async () =>
      agent().DELETE('/assistants/{assistant_id}', { ...agentWithKey(), params: { path: { assistant_id: MISSING } } }),
    'deleteAssistant 422': async () =>
      agent().DELETE('/assistants/{assistant_id}', {
        ...agentWithKey(),
        params: { path: { assistant_id: MISSING }, query: { delete_threads: 'yes' as never } },
      }),
    'listAssistantVersions 200': async () =>
      agent().POST('/assistants/{assistant_id}/versions', {
        ...agentWithKey(),
        params: { path: await assistantPath() },
        body: { limit: 5 },
      }),
    'listAssistantVersions 401': async () =>
      agent().POST('/assistants/{assistant_id}/versions', { params: { path: { assistant_id: MISSING } }, body: {} }),
    'listAssistantVersions 404': async () =>
      agent().POST('/assistants/{assistant_id}/versions', { ...agentWithKey(), params: { path: { assistant_id: MISSING } }, body: {} }),
    'listAssistantVersions 422': async () =>
      agent().POST('/assistants/{assistant_id}/versions', {
        ...agentWithKey(),
        params: { path: { assistant_id: MISSING } },
        body: { limit: 0 },
      }),
    'setLatestAssistantVersion 200': async () =>
      agent().POST('/assistants/{assistant_id}/latest', {
        ...agentWithKey(),
        params: { path: await assistantPath() },
        body: { version: 1 },
      }),
    'setLatestAssistantVersion 401': async () =>
      agent().POST('/assistants/{assistant_id}/latest', { params: { path: { assistant_id: MISSING } }, body: { version: 1 } }),
    'setLatestAssistantVersion 404': async () =>
      agent().POST('/assistants/{assistant_id}/latest', {
        ...agentWithKey(),
        params: { path: await assistantPath() },
        body: { version: 2 },
      }),
    'setLatestAssistantVersion 422': async () =>
      agent().POST('/assistants/{assistant_id}/latest', {
        ...agentWithKey(),
        params: { path: { assistant_id: MISSING } },
        body: {} as never,
      }),
    'getAssistantGraph 200': async () =>
      agent().GET('/assistants/{assistant_id}/graph', {
        ...agentWithKey(),
        params: { path: { assistant_id: 'agent' }, query: { xray: '1' } },
      }),
    'getAssistantGraph 401': async () => agent().GET('/assistants/{assistant_id}/graph', { params: { path: { assistant_id: MISSING } } }),
    'getAssistantGraph 404': async () =>
      agent().GET('/assistants/{assistant_id}/graph', { ...agentWithKey(), params: { path: { assistant_id: MISSING } } }),
    'getAssistantGraph 422': async () =>
      agent().GET('/assistants/{assistant_id}/graph', {
        ...agentWithKey(),
        params: { path: { assistant_id: 'agent' }, query: { xray: 'yes' } },
      }),
    'getAssistantSchemas 200': async () =>
      agent().GET('/assistants/{assistant_id}/schemas', { ...agentWithKey(), params: { path: { assistant_id: 'agent' } } }),
    'getAssistantSchemas 401': async () =>
      agent().GET('/assistants/{assistant_id}/schemas', { params: { path: { assistant_id: MISSING } } }),
    'getAssistantSchemas 404': async () =>
      agent().GET('/assistants/{assistant_id}/schemas', { ...agentWithKey(), params: { path: { assistant_id: MISSING } } }),
    'getAssistantSchemas 422': async () =>
      agent().GET('/assistants/{assistant_id}/schemas', { ...agentWithKey(), params: { path: { assistant_id: '-x' } } }),
    'getAssistantSubgraphs 200': async () =>
      agent().GET('/assistants/{assistant_id}/subgraphs', {
        ...agentWithKey(),
        params: { path: { assistant_id: 'agent' }, query: { recurse: true } },
      }),
    'getAssistantSubgraphs 401': async () =>
      agent().GET('/assistants/{assistant_id}/subgraphs', { params: { path: { assistant_id: MISSING } } }),
    'getAssistantSubgraphs 404': async () =>
      agent().GET('/assistants/{assistant_id}/subgraphs', { ...agentWithKey(), params: { path: { assistant_id: MISSING } } }),
    'getAssistantSubgraphs 422': async () =>
      agent().GET('/assistants/{assistant_id}/subgraphs', {
        ...agentWithKey(),
        params: { path: { assistant_id: 'agent' }, query: { recurse: 'maybe' as never } },
      }),
    'getAssistantSubgraphsInNamespace 200': async () =>
      agent().GET('/assistants/{assistant_id}/subgraphs/{namespace}', {
        ...agentWithKey(),
        params: { path: { assistant_id: 'agent', namespace: 'researcher' } },
      }),
    'getAssistantSubgraphsInNamespace 401': async () =>
      agent().GET('/assistants/{assistant_id}/subgraphs/{namespace}', { params: { path: { assistant_id: MISSING, namespace: 'x' } } }),
    'getAssistantSubgraphsInNamespace 404': async () =>
      agent().GET('/assistants/{assistant_id}/subgraphs/{namespace}', {
        ...agentWithKey(),
        params: { path: { assistant_id: MISSING, namespace: 'x' } },
      }),
    'getAssistantSubgraphsInNamespace 422': async () =>
      agent().GET('/assistants/{assistant_id}/subgraphs/{namespace}', {
        ...agentWithKey(),
        params: { path: { assistant_id: 'agent', namespace: 'x'.repeat(1025) } },
      }),
    // No credentials: a health check and the server's info need none, even here where a key is required.
    'getHealth 200': async () => agent().GET('/ok'),
    'getServerInfo 200': async () => agent().GET('/info'),
    // The store
    'putStoreItem 204': async () =>
      agent().PUT('/store/items', { ...agentWithKey(), body: { namespace: ['contract', 'u-1'], key: 'k', value: { v: 1 }, ttl: 60 } }),
    'putStoreItem 401': async () => agent().PUT('/store/items', { body: { namespace: ['contract'], key: 'k', value: {} } }),
    'putStoreItem 422': async () =>
      agent().PUT('/store/items', { ...agentWithKey(), body: { namespace: ['contract', ''], key: 'k', value: {} } }),
    'getStoreItem 200': async () => {
      await agent().PUT('/store/items', { ...agentWithKey(), body: { namespace: ['contract', 'get'], key: 'k', value: { v: 1 } } });
      return agent().GET('/store/items', { ...agentWithKey(), params: { query: { namespace: 'contract.get', key: 'k' } } });
    },
    'getStoreItem 401': async () => agent().GET('/store/items', { params: { query: { namespace: 'contract', key: 'k' } } }),
    'getStoreItem 422': async () =>
      agent().GET('/store/items', { ...agentWithKey(), params: { query: { namespace: 'contract..x', key: 'k' } } }),
    'deleteStoreItem 204': async () =>
      agent().DELETE('/store/items', { ...agentWithKey(), body: { namespace: ['contract', 'u-1'], key: 'k' } }),
    'deleteStoreItem 401': async () => agent().DELETE('/store/items', { body: { namespace: ['contract'], key: 'k' } }),
    'deleteStoreItem 422': async () => agent().DELETE('/store/items', { ...agentWithKey(), body: { namespace: ['a.b'], key: 'k' } }),
    'searchStoreItems 200': async () =>
      agent().POST('/store/items/search', { ...agentWithKey(), body: { namespace_prefix: ['contract'], query: 'value' } }),
    'searchStoreItems 401': async () => agent().POST('/store/items/search', { body: { namespace_prefix: [] } }),
    'searchStoreItems 422': async () =>
      agent().POST('/store/items/search', { ...agentWithKey(), body: { namespace_prefix: [], limit: 0 } }),
    'listStoreNamespaces 200': async () =>
      agent().POST('/store/namespaces', { ...agentWithKey(), body: { prefix: ['contract'], max_depth: 2 } }),
    'listStoreNamespaces 401': async () => agent().POST('/store/namespaces', { body: {} }),
    'listStoreNamespaces 422': async () => agent().POST('/store/namespaces', { ...agentWithKey(), body: { max_depth: 0 } }),
    // Crons (disabled, so that none runs during the suite)
    'createCron 200': async () =>
      agent().POST('/runs/crons', { ...agentWithKey(), body: { assistant_id: 'agent', schedule: '@daily', enabled: false } }),
    'createCron 401': async () => agent().POST('/runs/crons', { body: { assistant_id: 'agent', schedule: '@daily' } }),
    'createCron 404': async () => agent().POST('/runs/crons', { ...agentWithKey(), body: { assistant_id: MISSING, schedule: '@daily' } }),
    'createCron 422': async () =>
      agent().POST('/runs/crons', { ...agentWithKey(), body: { assistant_id: 'agent', schedule: '@daily', timezone: 'Mars/Olympus' } }),
    'createThreadCron 200': async () =>
      agent().POST('/threads/{thread_id}/runs/crons', {
        ...agentWithKey(),
        params: { path: { thread_id: (await thread()).thread_id } },
        body: { assistant_id: 'agent', schedule: '0 9 * * mon', enabled: false },
      }),
    'createThreadCron 401': async () =>
      agent().POST('/threads/{thread_id}/runs/crons', {
        params: { path: { thread_id: MISSING } },
        body: { assistant_id: 'agent', schedule: '@daily' },
      }),
    'createThreadCron 404': async () =>
      agent().POST('/threads/{thread_id}/runs/crons', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { assistant_id: 'agent', schedule: '@daily' },
      }),
    'createThreadCron 422': async () =>
      agent().POST('/threads/{thread_id}/runs/crons', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { assistant_id: 'agent', schedule: '61 * * * *' },
      }),
    'searchCrons 200': async () =>
      agent().POST('/runs/crons/search', { ...agentWithKey(), body: { enabled: false, sort_by: 'next_run_date' } }),
    'searchCrons 401': async () => agent().POST('/runs/crons/search', { body: {} }),
    'searchCrons 422': async () => agent().POST('/runs/crons/search', { ...agentWithKey(), body: { sort_by: 'name' as never } }),
    'countCrons 200': async () => agent().POST('/runs/crons/count', { ...agentWithKey(), body: { enabled: false } }),
    'countCrons 401': async () => agent().POST('/runs/crons/count', { body: {} }),
    'countCrons 422': async () => agent().POST('/runs/crons/count', { ...agentWithKey(), body: { limit: 1 } as never }),
    'updateCron 200': async () =>
      agent().PATCH('/runs/crons/{cron_id}', {
        ...agentWithKey(),
        params: { path: { cron_id: await cronId() } },
        body: { schedule: '@hourly' },
      }),
    'updateCron 401': async () => agent().PATCH('/runs/crons/{cron_id}', { params: { path: { cron_id: MISSING } }, body: {} }),
    'updateCron 404': async () =>
      agent().PATCH('/runs/crons/{cron_id}', { ...agentWithKey(), params: { path: { cron_id: MISSING } }, body: {} }),
    'updateCron 422': async () =>
      agent().PATCH('/runs/crons/{cron_id}', { ...agentWithKey(), params: { path: { cron_id: 'x' } }, body: {} }),
    'deleteCron 204': async () =>
      agent().DELETE('/runs/crons/{cron_id}', { ...agentWithKey(), params: { path: { cron_id: await cronId() } } }),
    'deleteCron 401': async () => agent().DELETE('/runs/crons/{cron_id}', { params: { path: { cron_id: MISSING } } }),
    'deleteCron 404': async () => agent().DELETE('/runs/crons/{cron_id}', { ...agentWithKey(), params: { path: { cron_id: MISSING } } }),
    'deleteCron 422': async () => agent().DELETE('/runs/crons/{cron_id}', { ...agentWithKey(), params: { path: { cron_id: 'x' } } }),
    'sendThreadCommand 200': async () =>
      agent().POST('/threads/{thread_id}/commands', {
        ...agentWithKey(),
        params: { path: { thread_id: crypto.randomUUID() } },
        body: { id: 1, method: 'run.start', params: { assistant_id: 'agent', input: ask('hello') } },
      }),
    'sendThreadCommand 401': async () =>
      agent().POST('/threads/{thread_id}/commands', { params: { path: { thread_id: MISSING } }, body: { id: 1, method: 'agent.getTree' } }),
    'sendThreadCommand 422': async () =>
      agent().POST('/threads/{thread_id}/commands', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { method: 'agent.getTree' } as never,
      }),
    'streamThreadEvents 200': async () => {
      const threadId = crypto.randomUUID();
      const { data: started } = await agent().POST('/threads/{thread_id}/commands', {
        ...agentWithKey(),
        params: { path: { thread_id: threadId } },
        body: { id: 1, method: 'run.start', params: { assistant_id: 'agent', input: ask('hello') } },
      });
      const runId = (started as unknown as { result: { run_id: string } }).result.run_id;
      // A command's run waits its delay on the emulator's clock, which this suite holds still:
      // without moving it past the delay the run would never start and the join would never end.
      f.advance(RUN_DELAY_MS);
      await agent().GET('/threads/{thread_id}/runs/{run_id}/join', {
        ...agentWithKey(),
        params: { path: { thread_id: threadId, run_id: runId } },
      });
      const { response, data } = await agent().POST('/threads/{thread_id}/stream/events', {
        ...agentWithKey(),
        ...asStream,
        params: { path: { thread_id: threadId } },
        body: { channels: ['lifecycle', 'values', 'messages'] },
      });
      // A thread's event stream lasts as long as the thread: deleting it ends the stream.
      await agent().DELETE('/threads/{thread_id}', { ...agentWithKey(), params: { path: { thread_id: threadId } } });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(await new Response(data as unknown as ReadableStream).text()).toMatch(/^event: lifecycle\ndata: /);
      return { response };
    },
    'streamThreadEvents 401': async () =>
      agent().POST('/threads/{thread_id}/stream/events', { params: { path: { thread_id: MISSING } }, body: { channels: ['values'] } }),
    'streamThreadEvents 422': async () =>
      agent().POST('/threads/{thread_id}/stream/events', {
        ...agentWithKey(),
        params: { path: { thread_id: MISSING } },
        body: { channels: ['everything'] as never },
      }),
    'connectThreadEvents 101': async () => {
      const { status, socket } = await socketHandshake(`${f.emulator.agentServerUrl}/threads/${MISSING}/stream/events`, {
        'x-api-key': 'agent-key',
      });
      socket?.close();
      return { response: { status } as Response };
    },
    'connectThreadEvents 401': async () => socketRefusal(`/threads/${MISSING}/stream/events`, {}),
    'connectThreadEvents 403': async () => {
      // Browsers apply no CORS to WebSockets: a page of an origin the config does not list is refused at the handshake.
      const listed = await startTestEmulator({ config: { cors: { origins: ['http://localhost:3000'] } } });
      try {
        const { status, body } = await socketHandshake(`${listed.agentServerUrl}/threads/${MISSING}/stream/events`, {
          origin: 'http://localhost:3001',
        });
        return { response: { status } as Response, error: body };
      } finally {
        await listed.close();
      }
    },
    'connectThreadEvents 422': async () => socketRefusal('/threads/not-a-thread/stream/events', { 'x-api-key': 'agent-key' }),
    'connectThreadEvents 426': async () => {
      const answer = await rawRequest(f.emulator.agentServerUrl, {
        method: 'GET',
        path: `/threads/${MISSING}/stream/events`,
        headers: { 'x-api-key': 'agent-key' },
      });
      expect(answer.headers.upgrade).toBe('websocket');
      return { response: new Response(answer.text, { status: answer.status }), error: answer.json };
    },
  },
};

/** A WebSocket handshake the emulator refuses: its status and body. */
async function socketRefusal(path: string, headers: Record<string, string>): Promise<Result> {
  const { status, body } = await socketHandshake(`${f.emulator.agentServerUrl}${path}`, headers);
  return { response: { status } as Response, error: body };
}

/** A disabled cron of the `agent` graph's default assistant. */
async function cronId(): Promise<string> {
  const { data } = await agent().POST('/runs/crons', {
    ...agentWithKey(),
    body: { assistant_id: 'agent', schedule: '@daily', enabled: false },
  });
  return data!.cron_id;
}

const CREDENTIALS: Record<ApiName, Record<string, string>> = {
  'control-plane': { 'x-api-key': 'key-a' },
  'agent-server': { 'x-api-key': 'agent-key' },
};
/** Path parameter values that route and validate (the records need not exist). */
const PATH_VALUES: Record<string, string> = { provider_id: 'github', name: 'python-pool', namespace: 'researcher' };

/** The transport-level statuses of every operation, each from a raw request to the operation's path. */
function transportScenarios(api: ApiName, spec: any): Record<string, () => Promise<Result>> {
  const scenarios: Record<string, () => Promise<Result>> = {};
  const baseUrl = () => (api === 'agent-server' ? f.emulator.agentServerUrl : f.emulator.controlPlaneUrl);
  const limits = spec['x-request-limits'];
  const send = async (request: RawRequest): Promise<Result> => {
    const answer = await rawRequest(baseUrl(), { ...request, headers: { ...CREDENTIALS[api], ...request.headers } });
    return { response: new Response(answer.text, { status: answer.status }), error: answer.json };
  };
  for (const { operationId, method, path, operation } of listOperations(spec)) {
    const target = path.replace(/\{([^}]+)\}/g, (_, name: string) => PATH_VALUES[name] ?? MISSING);
    const verb = method.toUpperCase();
    const json = { 'content-type': 'application/json' };
    scenarios[`${operationId} 431`] = () =>
      send({ method: verb, path: target, headers: { 'x-padding': 'p'.repeat(limits['header-bytes']) } });
    if (!operation.requestBody) {
      scenarios[`${operationId} 400`] = async () => {
        const host = new URL(baseUrl()).host;
        const answer = await rawSocketExchange(baseUrl(), `${verb} ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: x\r\n\r\n`);
        return { response: new Response(answer.body, { status: answer.status ?? 0 }), error: JSON.parse(answer.body) };
      };
      continue;
    }
    scenarios[`${operationId} 400`] = () =>
      send({ method: verb, path: target, headers: json, body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]) });
    scenarios[`${operationId} 413`] = () =>
      send({ method: verb, path: target, headers: json, body: `{"metadata": "${'m'.repeat(limits['body-bytes'])}"}` });
    scenarios[`${operationId} 415`] = () =>
      send({ method: verb, path: target, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '{}' });
  }
  return scenarios;
}

for (const api of ['control-plane', 'agent-server'] as const) {
  const spec = loadBundle(api);
  const validate = createValidator(spec);
  Object.assign(scenarios[api]!, transportScenarios(api, spec));
  const documented = listOperations(spec).flatMap((op) =>
    Object.keys(op.operation.responses).map((status) => ({ op, status, key: `${op.operationId} ${status}` })),
  );

  describe(`${api}: every documented status against the emulator`, () => {
    it('has a scenario for exactly the statuses the spec documents', () => {
      expect(Object.keys(scenarios[api]!).sort()).toEqual(documented.map((d) => d.key).sort());
    });

    for (const { op, status, key } of documented) {
      it(key, async () => {
        const scenario = scenarios[api]![key];
        if (!scenario) throw new Error(`no scenario for ${key}`);
        const { response, data, error } = await scenario();
        expect(response.status).toBe(Number(status));
        const schema =
          op.operation.responses[status].content?.['application/json']?.schema ??
          spec.components.responses[op.operation.responses[status].$ref?.split('/').pop()]?.content?.['application/json']?.schema;
        const body = data ?? error;
        if (schema) {
          const result = validate(schema, body);
          expect(result.errors).toBe('');
        } else {
          expect(body).toBeUndefined();
        }
      });
    }
  });
}
