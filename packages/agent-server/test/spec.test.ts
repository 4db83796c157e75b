import { createValidator, loadBundle } from '@agentplane/openapi-toolkit';
import { describeSpecContract } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';

describeSpecContract('agent-server', [
  { operationId: 'createThread', method: 'post', path: '/threads', statuses: ['200', '400', '401', '409', '413', '415', '422', '431'] },
  { operationId: 'searchThreads', method: 'post', path: '/threads/search', statuses: ['200', '400', '401', '413', '415', '422', '431'] },
  { operationId: 'getThread', method: 'get', path: '/threads/{thread_id}', statuses: ['200', '400', '401', '404', '422', '431'] },
  {
    operationId: 'copyThread',
    method: 'post',
    path: '/threads/{thread_id}/copy',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  {
    operationId: 'getThreadState',
    method: 'get',
    path: '/threads/{thread_id}/state',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'getThreadStateAtCheckpoint',
    method: 'get',
    path: '/threads/{thread_id}/state/{checkpoint_id}',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'getThreadHistory',
    method: 'post',
    path: '/threads/{thread_id}/history',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  { operationId: 'countThreads', method: 'post', path: '/threads/count', statuses: ['200', '400', '401', '413', '415', '422', '431'] },
  { operationId: 'pruneThreads', method: 'post', path: '/threads/prune', statuses: ['200', '400', '401', '413', '415', '422', '431'] },
  {
    operationId: 'updateThread',
    method: 'patch',
    path: '/threads/{thread_id}',
    statuses: ['200', '204', '400', '401', '404', '413', '415', '422', '431'],
  },
  { operationId: 'deleteThread', method: 'delete', path: '/threads/{thread_id}', statuses: ['204', '400', '401', '404', '422', '431'] },
  {
    operationId: 'updateThreadState',
    method: 'post',
    path: '/threads/{thread_id}/state',
    statuses: ['200', '400', '401', '404', '409', '413', '415', '422', '431'],
  },
  {
    operationId: 'patchThreadState',
    method: 'patch',
    path: '/threads/{thread_id}/state',
    statuses: ['204', '400', '401', '404', '413', '415', '422', '431'],
  },
  {
    operationId: 'getThreadStateAtCheckpointObject',
    method: 'post',
    path: '/threads/{thread_id}/state/checkpoint',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  { operationId: 'listRuns', method: 'get', path: '/threads/{thread_id}/runs', statuses: ['200', '400', '401', '404', '422', '431'] },
  {
    operationId: 'createRun',
    method: 'post',
    path: '/threads/{thread_id}/runs',
    statuses: ['200', '400', '401', '404', '409', '413', '415', '422', '431'],
  },
  {
    operationId: 'waitRun',
    method: 'post',
    path: '/threads/{thread_id}/runs/wait',
    statuses: ['200', '400', '401', '404', '409', '413', '415', '422', '431'],
  },
  {
    operationId: 'getRun',
    method: 'get',
    path: '/threads/{thread_id}/runs/{run_id}',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'deleteRun',
    method: 'delete',
    path: '/threads/{thread_id}/runs/{run_id}',
    statuses: ['204', '400', '401', '404', '409', '422', '431'],
  },
  {
    operationId: 'joinRun',
    method: 'get',
    path: '/threads/{thread_id}/runs/{run_id}/join',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'streamRun',
    method: 'post',
    path: '/threads/{thread_id}/runs/stream',
    statuses: ['200', '400', '401', '404', '409', '413', '415', '422', '431'],
  },
  {
    operationId: 'joinRunStream',
    method: 'get',
    path: '/threads/{thread_id}/runs/{run_id}/stream',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'streamStatelessRun',
    method: 'post',
    path: '/runs/stream',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  {
    operationId: 'joinThreadStream',
    method: 'get',
    path: '/threads/{thread_id}/stream',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'sendThreadCommand',
    method: 'post',
    path: '/threads/{thread_id}/commands',
    statuses: ['200', '400', '401', '413', '415', '422', '431'],
  },
  {
    operationId: 'streamThreadEvents',
    method: 'post',
    path: '/threads/{thread_id}/stream/events',
    statuses: ['200', '400', '401', '413', '415', '422', '431'],
  },
  {
    operationId: 'connectThreadEvents',
    method: 'get',
    path: '/threads/{thread_id}/stream/events',
    statuses: ['101', '400', '401', '403', '422', '426', '431'],
  },
  {
    operationId: 'cancelRun',
    method: 'post',
    path: '/threads/{thread_id}/runs/{run_id}/cancel',
    statuses: ['202', '204', '400', '401', '404', '422', '431'],
  },
  { operationId: 'createStatelessRun', method: 'post', path: '/runs', statuses: ['200', '400', '401', '404', '413', '415', '422', '431'] },
  {
    operationId: 'waitStatelessRun',
    method: 'post',
    path: '/runs/wait',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  {
    operationId: 'createRunBatch',
    method: 'post',
    path: '/runs/batch',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  { operationId: 'cancelRuns', method: 'post', path: '/runs/cancel', statuses: ['204', '400', '401', '404', '413', '415', '422', '431'] },
  {
    operationId: 'createAssistant',
    method: 'post',
    path: '/assistants',
    statuses: ['200', '400', '401', '404', '409', '413', '415', '422', '431'],
  },
  {
    operationId: 'searchAssistants',
    method: 'post',
    path: '/assistants/search',
    statuses: ['200', '400', '401', '413', '415', '422', '431'],
  },
  {
    operationId: 'countAssistants',
    method: 'post',
    path: '/assistants/count',
    statuses: ['200', '400', '401', '413', '415', '422', '431'],
  },
  { operationId: 'getAssistant', method: 'get', path: '/assistants/{assistant_id}', statuses: ['200', '400', '401', '404', '422', '431'] },
  {
    operationId: 'updateAssistant',
    method: 'patch',
    path: '/assistants/{assistant_id}',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  {
    operationId: 'deleteAssistant',
    method: 'delete',
    path: '/assistants/{assistant_id}',
    statuses: ['204', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'listAssistantVersions',
    method: 'post',
    path: '/assistants/{assistant_id}/versions',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  {
    operationId: 'setLatestAssistantVersion',
    method: 'post',
    path: '/assistants/{assistant_id}/latest',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  {
    operationId: 'getAssistantGraph',
    method: 'get',
    path: '/assistants/{assistant_id}/graph',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'getAssistantSchemas',
    method: 'get',
    path: '/assistants/{assistant_id}/schemas',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'getAssistantSubgraphs',
    method: 'get',
    path: '/assistants/{assistant_id}/subgraphs',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'getAssistantSubgraphsInNamespace',
    method: 'get',
    path: '/assistants/{assistant_id}/subgraphs/{namespace}',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  { operationId: 'getHealth', method: 'get', path: '/ok', statuses: ['200', '400', '431'] },
  { operationId: 'getServerInfo', method: 'get', path: '/info', statuses: ['200', '400', '431'] },
  { operationId: 'putStoreItem', method: 'put', path: '/store/items', statuses: ['204', '400', '401', '413', '415', '422', '431'] },
  { operationId: 'getStoreItem', method: 'get', path: '/store/items', statuses: ['200', '400', '401', '422', '431'] },
  { operationId: 'deleteStoreItem', method: 'delete', path: '/store/items', statuses: ['204', '400', '401', '413', '415', '422', '431'] },
  {
    operationId: 'searchStoreItems',
    method: 'post',
    path: '/store/items/search',
    statuses: ['200', '400', '401', '413', '415', '422', '431'],
  },
  {
    operationId: 'listStoreNamespaces',
    method: 'post',
    path: '/store/namespaces',
    statuses: ['200', '400', '401', '413', '415', '422', '431'],
  },
  { operationId: 'createCron', method: 'post', path: '/runs/crons', statuses: ['200', '400', '401', '404', '413', '415', '422', '431'] },
  {
    operationId: 'createThreadCron',
    method: 'post',
    path: '/threads/{thread_id}/runs/crons',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  { operationId: 'searchCrons', method: 'post', path: '/runs/crons/search', statuses: ['200', '400', '401', '413', '415', '422', '431'] },
  { operationId: 'countCrons', method: 'post', path: '/runs/crons/count', statuses: ['200', '400', '401', '413', '415', '422', '431'] },
  {
    operationId: 'updateCron',
    method: 'patch',
    path: '/runs/crons/{cron_id}',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  { operationId: 'deleteCron', method: 'delete', path: '/runs/crons/{cron_id}', statuses: ['204', '400', '401', '404', '422', '431'] },
]);

const spec = loadBundle('agent-server');
const validate = createValidator(spec);
const schema = (name: string) => `#/components/schemas/${name}`;
const checkpointId = '1f0c6d2e-3a47-6e10-8001-9d7e0f1a2b3c';

describe('agent-server contract decisions', () => {
  it('has no version prefix, optional X-Api-Key on every operation, and none on the health and info checks', () => {
    for (const [route, item] of Object.entries<any>(spec.paths)) {
      expect(route).toMatch(/^\/(threads|assistants|runs|store)(\/|$)|^\/(ok|info)$/);
      for (const operation of Object.values<any>(item).filter((o) => o?.operationId)) {
        const expected = operation.tags.includes('System') ? [] : [{}, { ApiKeyAuth: [] }];
        expect(operation.security, operation.operationId).toEqual(expected);
      }
    }
  });

  it('accepts an empty create, and supersteps whose updates name their node', () => {
    expect(validate(schema('ThreadCreate'), {}).errors).toBe('');
    expect(validate(schema('ThreadCreate'), spec.components.examples.ThreadCreateWithSupersteps.value).errors).toBe('');
  });

  it.each([
    ['a superstep update without as_node', { supersteps: [{ updates: [{ values: {} }] }] }],
    ['a superstep without updates', { supersteps: [{}] }],
    ['a superstep with no update', { supersteps: [{ updates: [] }] }],
    ['a malformed thread_id', { thread_id: 'not-a-uuid' }],
    ['an unknown if_exists', { if_exists: 'replace' }],
    ['an unknown field', { metdata: {} }],
    ['an unknown field in an update', { supersteps: [{ updates: [{ as_node: 'a', value: {} }] }] }],
  ])('refuses a create with %s', (_, body) => {
    expect(validate(schema('ThreadCreate'), body).valid).toBe(false);
  });

  it('bounds and defaults search as decision A7 says', () => {
    const search = spec.components.schemas.ThreadSearch;
    expect(search.properties.limit).toMatchObject({ minimum: 1, maximum: 1000, default: 10 });
    expect(search.properties.offset).toMatchObject({ minimum: 0, default: 0 });
    expect(search.properties.sort_by.default).toBe('created_at');
    expect(search.properties.sort_order.default).toBe('desc');
    expect(spec.components.schemas.ThreadSortBy.enum).toEqual(['thread_id', 'status', 'created_at', 'updated_at']);
    expect(spec.components.schemas.SortOrder.enum).toEqual(['asc', 'desc']);
    for (const bad of [{ limit: 0 }, { limit: 1001 }, { offset: -1 }, { sort_by: 'name' }, { status: 'done' }, { ids: ['x'] }]) {
      expect(validate(schema('ThreadSearch'), bad).valid, JSON.stringify(bad)).toBe(false);
    }
    expect(spec.paths['/threads/search'].post.responses['200'].headers['X-Pagination-Total']).toBeDefined();
  });

  it('takes history `before` as an ID, a checkpoint object or a configurable, and nothing else', () => {
    for (const before of [
      checkpointId,
      { checkpoint_id: checkpointId, checkpoint_ns: '' },
      { configurable: { checkpoint_id: checkpointId } },
    ]) {
      expect(validate(schema('ThreadHistoryQuery'), { limit: 5, before }).errors).toBe('');
    }
    for (const before of ['nope', 42, { id: checkpointId }, { configurable: {} }]) {
      expect(validate(schema('ThreadHistoryQuery'), { before }).valid, JSON.stringify(before)).toBe(false);
    }
    expect(validate(schema('ThreadHistoryQuery'), { limit: 1001 }).valid).toBe(false);
  });

  it('accepts only an empty copy body', () => {
    expect(validate(schema('ThreadCopy'), {}).errors).toBe('');
    expect(validate(schema('ThreadCopy'), { thread_id: checkpointId }).valid).toBe(false);
    expect(spec.paths['/threads/{thread_id}/copy'].post.requestBody.required).toBe(false);
  });

  it('allows the null fields real servers send, and an empty state', () => {
    const state = spec.components.examples.ThreadStateEmpty.value;
    expect(validate(schema('ThreadState'), state).errors).toBe('');
    const first = spec.components.examples.ThreadHistory.value.at(-1);
    expect(first.parent_checkpoint).toBeNull();
    expect(validate(schema('ThreadState'), first).errors).toBe('');
    const task = { id: 't', name: 'call_model', error: null, interrupts: [], checkpoint: null, state: null };
    expect(validate(schema('ThreadTask'), task).errors).toBe('');
  });

  it('discriminates messages by type', () => {
    const human = { type: 'human', content: 'hi', id: 'm1' };
    expect(validate(schema('Message'), human).errors).toBe('');
    expect(validate(schema('Message'), { ...human, type: 'ai', tool_calls: [], usage_metadata: null }).errors).toBe('');
    expect(validate(schema('Message'), { ...human, type: 'robot' }).valid).toBe(false);
    // Written, a message may also name its role, when the role names its type.
    expect(validate(schema('MessageInput'), { ...human, role: 'user' }).errors).toBe('');
    expect(validate(schema('MessageInput'), { ...human, role: 'developer', type: 'system' }).errors).toBe('');
    expect(validate(schema('MessageInput'), { ...human, role: 'assistant' }).valid).toBe(false);
  });

  it('states the rules of a run in its schema', () => {
    const run = { assistant_id: 'support', input: { messages: [{ type: 'human', content: 'hi' }] } };
    expect(validate(schema('RunCreate'), run).errors).toBe('');
    expect(validate(schema('RunCreate'), { assistant_id: 'support', command: { resume: 'yes' }, input: null }).errors).toBe('');
    // A command beside an input runs, the input ignored (as the AG-UI adapter and agent-chat-ui send it); the input is still checked.
    expect(validate(schema('RunCreate'), { ...run, command: { resume: 'yes' } }).errors).toBe('');
    expect(validate(schema('RunCreate'), { assistant_id: 'support', command: { resume: 'yes' }, input: {} }).errors).toBe('');
    for (const bad of [
      { input: {} },
      { assistant_id: 'support', input: { messages: [{ type: 'human' }] }, command: { resume: 'yes' } },
      { ...run, webhook: 'ftp://hooks.example.com/x' },
      { ...run, interrupt_before: 'tools' },
      { ...run, multitask_strategy: 'queue' },
      { ...run, on_completion: 'complete' },
      { ...run, stream_mode: ['values', 'tokens'] },
      { ...run, unknown: true },
    ]) {
      expect(validate(schema('RunCreate'), bad).valid, JSON.stringify(bad)).toBe(false);
    }
    expect(validate(schema('RunCancel'), { run_ids: [checkpointId] }).errors).toBe('');
    expect(validate(schema('RunCancel'), { status: 'all' }).errors).toBe('');
    for (const bad of [{}, { status: 'all', run_ids: [checkpointId] }, { status: 'all', thread_id: checkpointId }, { run_ids: [] }]) {
      expect(validate(schema('RunCancel'), bad).valid, JSON.stringify(bad)).toBe(false);
    }
  });

  it('takes the LangGraph SDK’s camelCase batch fields exactly as their snake_case twins, and RunCreate’s fields as they are', () => {
    const create = spec.components.schemas.RunCreate.properties;
    const item = spec.components.schemas.RunBatchItem.properties;
    const withoutDefault = ({ default: _default, ...rest }: any) => rest;
    const snakeOf = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    for (const [name, schema] of Object.entries<any>(item)) {
      expect(create[snakeOf(name)], `${name} of RunBatchItem is a field of RunCreate`).toBeDefined();
      expect(schema, name).toEqual(withoutDefault(create[snakeOf(name)]));
    }
    expect(Object.keys(create).every((name) => name in item)).toBe(true);
    expect(spec.components.schemas.RunBatchItem.if).toEqual(spec.components.schemas.RunCreate.if);
  });

  it('creates an assistant of a graph: graph_id required, closed config, name Untitled by default (decision A12)', () => {
    expect(validate(schema('AssistantCreate'), { graph_id: 'support' }).errors).toBe('');
    expect(spec.components.schemas.AssistantCreate.properties.name.default).toBe('Untitled');
    expect(spec.components.schemas.AssistantCreate.properties.if_exists.default).toBe('raise');
    for (const bad of [
      {},
      { graph_id: '' },
      { graph_id: 'has space' },
      { graph_id: '-leading-dash' },
      { graph_id: 'x'.repeat(65) },
      { graph_id: 'support', config: { configurables: {} } },
      { graph_id: 'support', config: { recursion_limit: 0 } },
      { graph_id: 'support', assistant_id: 'not-a-uuid' },
      { graph_id: 'support', if_exists: 'replace' },
      { graph_id: 'support', name: '' },
      { graph_id: 'support', version: 2 },
    ]) {
      expect(validate(schema('AssistantCreate'), bad).valid, JSON.stringify(bad)).toBe(false);
    }
  });

  it('names an assistant in a path by its UUID or by a graph ID, and nothing else', () => {
    const parameter = spec.components.parameters.AssistantId;
    const check = (value: string) => validate('#/components/parameters/AssistantId/schema', value).valid;
    for (const good of ['a76bea17-1a15-53a6-bfc6-e12c619f641d', 'support', 'my_graph.v2', 'A76BEA17-1A15-53A6-BFC6-E12C619F641D']) {
      expect(check(good), good).toBe(true);
    }
    for (const bad of ['', 'has space', '.hidden', 'x/y', 'ü']) expect(check(bad), bad).toBe(false);
    expect(parameter.in).toBe('path');
  });

  it('bounds and defaults assistant search, count and versions', () => {
    const search = spec.components.schemas.AssistantSearch;
    expect(search.properties.limit).toMatchObject({ minimum: 1, maximum: 1000, default: 10 });
    expect(search.properties.offset).toMatchObject({ minimum: 0, default: 0 });
    expect(search.properties.sort_by.default).toBe('created_at');
    expect(search.properties.sort_order.default).toBe('desc');
    expect(spec.components.schemas.AssistantSortBy.enum).toEqual(['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at']);
    for (const bad of [{ limit: 0 }, { limit: 1001 }, { offset: -1 }, { sort_by: 'version' }, { select: ['values'] }, { status: 'idle' }]) {
      expect(validate(schema('AssistantSearch'), bad).valid, JSON.stringify(bad)).toBe(false);
    }
    const headers = spec.paths['/assistants/search'].post.responses['200'].headers;
    expect(Object.keys(headers)).toEqual(['X-Pagination-Total', 'X-Pagination-Next']);
    expect(validate(schema('AssistantCount'), { limit: 5 }).valid).toBe(false);
    expect(spec.components.schemas.AssistantVersionSearch.properties.limit).toMatchObject({ minimum: 1, maximum: 1000, default: 10 });
    expect(validate(schema('AssistantLatestVersion'), {}).valid).toBe(false);
    expect(validate(schema('AssistantLatestVersion'), { version: 0 }).valid).toBe(false);
  });

  it('takes xray as true, false or a depth', () => {
    const check = (value: string) => validate('#/components/parameters/Xray/schema', value).valid;
    for (const good of ['true', 'false', '0', '2', '100']) expect(check(good), good).toBe(true);
    for (const bad of ['yes', '1.5', '-1', '01', 'TRUE', '']) expect(check(bad), bad).toBe(false);
  });

  it('uses uuids for thread and checkpoint ids', () => {
    expect(spec.components.parameters.ThreadId.schema.format).toBe('uuid');
    expect(spec.components.parameters.CheckpointId.schema.format).toBe('uuid');
  });
});
