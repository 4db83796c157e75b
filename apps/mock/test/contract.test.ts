// Every operation of both APIs against its Prism mock: each documented status answers with a
// body that validates against the spec, each named example is served verbatim, and invalid
// requests get the documented 401/422 shapes.

import http from 'node:http';
import { API_NAMES, createValidator, listOperations, loadBundle } from '@agentplane/openapi-toolkit';
import { describe, expect, inject, it } from 'vitest';
import { firstRequestExample, mockStatus, openBody, responseExamples, responseSchema, send, validRequest } from './requests.js';

const urls = inject('mockUrls');

for (const api of API_NAMES) {
  const spec = loadBundle(api);
  const validate = createValidator(spec);
  const operations = listOperations(spec);

  describe(`${api} mock`, () => {
    for (const op of operations) {
      for (const status of Object.keys(op.operation.responses)) {
        const served = mockStatus(status);
        const title = served === status ? `${status} with` : `${served} (no sockets to switch to ${status}) with`;
        it(`${op.operationId} answers ${title} a body valid against the spec (Prefer: code=${status})`, async () => {
          const request = validRequest(spec, urls[api]!, op);
          request.init.headers.prefer = `code=${status}`;
          const response = await send(request);
          expect(response.status, JSON.stringify(response.body)).toBe(Number(served));
          const schema = responseSchema(spec, op, served);
          if (schema) expect(validate(schema, response.body).errors).toBe('');
          else expect(response.body, 'an answer declared without a body has none').toBe('');
          if (served === '426') expect(response.headers.get('upgrade')).toBe('websocket');
        });

        for (const [name, value] of responseExamples(spec, op, status)) {
          it(`${op.operationId} serves the ${status} example ${name} verbatim`, async () => {
            const request = validRequest(spec, urls[api]!, op);
            request.init.headers.prefer = `code=${status}, example=${name}`;
            const response = await send(request);
            expect(response.status).toBe(Number(status));
            expect(response.body).toEqual(value);
          });
        }
      }

      const uuidParams = op.parameters.filter((p: any) => p.in === 'path' && p.schema?.format === 'uuid');
      for (const parameter of uuidParams) {
        it(`${op.operationId} answers a malformed ${parameter.name} with 422 HTTPValidationError`, async () => {
          const response = await send(validRequest(spec, urls[api]!, op, { pathParams: { [parameter.name]: 'not-a-uuid' } }));
          expect(response.status).toBe(422);
          expect(validate('#/components/schemas/HTTPValidationError', response.body).errors).toBe('');
        });
      }

      const example = firstRequestExample(spec, op);
      // An open body (the protocol's command envelope, which the protocol declares extensible)
      // ignores a field it does not know: the request is served as without it.
      if (example && typeof example === 'object' && !Array.isArray(example) && openBody(spec, op)) {
        it(`${op.operationId} ignores an unknown body field (its body schema is open)`, async () => {
          const response = await send(validRequest(spec, urls[api]!, op, { body: { ...example, unexpected_field: true } }));
          expect(response.status, JSON.stringify(response.body)).toBe(200);
          expect(validate(responseSchema(spec, op, '200')!, response.body).errors).toBe('');
        });
      } else if (example && typeof example === 'object' && !Array.isArray(example)) {
        it(`${op.operationId} answers an unknown body field with 422 HTTPValidationError`, async () => {
          const response = await send(validRequest(spec, urls[api]!, op, { body: { ...example, unexpected_field: true } }));
          expect(response.status).toBe(422);
          expect(validate('#/components/schemas/HTTPValidationError', response.body).errors).toBe('');
        });
      }
    }
  });
}

describe('control-plane mock: auth and validation', () => {
  const api = 'control-plane';
  const spec = loadBundle(api);
  const validate = createValidator(spec);
  const operations = listOperations(spec);
  const byId = (id: string) => operations.find((op) => op.operationId === id)!;

  for (const op of operations) {
    it(`${op.operationId} answers 401 {"detail"} without X-Api-Key`, async () => {
      const request = validRequest(spec, urls[api]!, op);
      delete request.init.headers['x-api-key'];
      const response = await send(request);
      expect(response.status).toBe(401);
      expect(validate('#/components/schemas/ErrorDetail', response.body).errors).toBe('');
    });
  }

  it.each([
    ['x-tenant-id', 'tenant-a'],
    ['authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig'],
  ])('getRevision accepts %s instead of X-Api-Key', async (header, value) => {
    const request = validRequest(spec, urls[api]!, byId('getRevision'));
    delete request.init.headers['x-api-key'];
    request.init.headers[header] = value;
    const response = await send(request);
    expect(response.status).toBe(200);
    expect(validate('#/components/schemas/Revision', response.body).errors).toBe('');
  });

  it.each([
    ['a wrong type (name: 42)', { name: 42, source: 'external_container', source_revision_config: { image_uri: 'r/a:1' } }],
    ['a missing required field (source)', { name: 'x' }],
    ['a git_host create without its repository', { name: 'x', source: 'git_host' }],
    [
      'a tag ref with build_on_push',
      {
        name: 'x',
        source: 'git_host',
        source_config: { repo_url: 'u', build_on_push: true },
        source_revision_config: { repo_ref: 'refs/tags/v1', graph_config_path: 'g' },
      },
    ],
  ])('createDeployment answers %s with 422', async (_, body) => {
    const response = await send(validRequest(spec, urls[api]!, byId('createDeployment'), { body }));
    expect(response.status).toBe(422);
    expect(validate('#/components/schemas/HTTPValidationError', response.body).errors).toBe('');
  });

  it.each([
    ['listDeployments', '?limit=0'],
    ['listDeployments', '?limit=101'],
    ['listDeployments', '?offset=-1'],
    ['listDeployments', '?limit=ten'],
    ['listRevisions', '?status=DONE'],
    ['listRevisions', '?status=deployed'],
    ['listRevisions', '?limit=500'],
    ['listDeployments', '?offset=9007199254740992'],
    ['listDeployments', '?offset=18446744073709551616'],
    ['listRevisions', '?offset=9223372036854775807'],
  ])('%s answers %s with 422 HTTPValidationError', async (operationId, query) => {
    const request = validRequest(spec, urls[api]!, byId(operationId));
    const response = await send({ ...request, url: `${request.url}${query}` });
    expect(response.status).toBe(422);
    expect(validate('#/components/schemas/HTTPValidationError', response.body).errors).toBe('');
  });

  it.each([
    ['listDeployments', '?name_contains=billing&limit=100&offset=20'],
    ['listRevisions', '?status=BUILD_FAILED&limit=1&offset=0'],
  ])('%s accepts %s', async (operationId, query) => {
    const request = validRequest(spec, urls[api]!, byId(operationId));
    const response = await send({ ...request, url: `${request.url}${query}` });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ resources: expect.any(Array), offset: expect.any(Number) });
  });

  it('updateDeployment refuses a change of source with 422', async () => {
    const response = await send(validRequest(spec, urls[api]!, byId('updateDeployment'), { body: { source: 'git_host' } }));
    expect(response.status).toBe(422);
  });

  it.each(['Python-Pool', 'pool_1', '-pool'])('getSandboxPool answers the invalid name %s with 422', async (name) => {
    const response = await send(validRequest(spec, urls[api]!, byId('getSandboxPool'), { pathParams: { name } }));
    expect(response.status).toBe(422);
    expect(validate('#/components/schemas/HTTPValidationError', response.body).errors).toBe('');
  });
});

describe('agent-server mock: validation and headers', () => {
  const api = 'agent-server';
  const spec = loadBundle(api);
  const validate = createValidator(spec);
  const operations = listOperations(spec);
  const byId = (id: string) => operations.find((op) => op.operationId === id)!;

  it('searchThreads sends X-Pagination-Total as an integer', async () => {
    const response = await send(validRequest(spec, urls[api]!, byId('searchThreads')));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-pagination-total')).toMatch(/^\d+$/);
  });

  it('accepts thread operations without credentials', async () => {
    const request = validRequest(spec, urls[api]!, byId('getThread'));
    delete request.init.headers['x-api-key'];
    expect((await send(request)).status).toBe(200);
  });

  // Prism's own finding, not the operation's first 422 example: the item names the field at fault.
  it.each([
    ['createThread', { bogus: 1 }, ['body', 'bogus'], 'extra_forbidden'],
    ['createThread', { supersteps: [{ updates: [{ values: {} }] }] }, ['body', 'supersteps', 0, 'updates', 0, 'as_node'], 'missing'],
    ['createThread', { if_exists: 'replace' }, ['body', 'if_exists'], 'enum'],
    ['createThread', { thread_id: 'nope' }, ['body', 'thread_id'], 'uuid_parsing'],
    ['searchThreads', { limit: 'ten' }, ['body', 'limit'], 'int_type'],
    ['searchThreads', { limit: 1001 }, ['body', 'limit'], 'less_than_equal'],
    ['searchThreads', { offset: 2 ** 63 }, ['body', 'offset'], 'less_than_equal'],
    ['searchThreads', { offset: 1e308 }, ['body', 'offset'], 'less_than_equal'],
    ['searchThreads', { sort_order: 'sideways' }, ['body', 'sort_order'], 'enum'],
    ['getThreadHistory', { limit: 0 }, ['body', 'limit'], 'greater_than_equal'],
    ['sendThreadCommand', { method: 'run.start', params: {} }, ['body', 'id'], 'missing'],
    ['sendThreadCommand', { id: 1, method: 'run.start', params: 'support' }, ['body', 'params'], 'dict_type'],
    ['streamThreadEvents', { channels: [] }, ['body', 'channels'], 'too_short'],
    ['streamThreadEvents', { channels: ['values'], bogus: 1 }, ['body', 'bogus'], 'extra_forbidden'],
  ])('%s answers %j with a 422 HTTPValidationError naming that field', async (operationId, body, loc, type) => {
    const response = await send(validRequest(spec, urls[api]!, byId(operationId), { body }));
    expect(response.status).toBe(422);
    expect(validate('#/components/schemas/HTTPValidationError', response.body).errors).toBe('');
    expect(response.body.detail).toContainEqual({ loc, msg: expect.any(String), type });
  });

  it('getThreadHistory answers a before that is none of its forms with 422 HTTPValidationError', async () => {
    const response = await send(validRequest(spec, urls[api]!, byId('getThreadHistory'), { body: { before: 'not-a-checkpoint' } }));
    expect(response.status).toBe(422);
    expect(validate('#/components/schemas/HTTPValidationError', response.body).errors).toBe('');
  });

  it('answers a malformed path parameter with an item at that parameter', async () => {
    const response = await send(validRequest(spec, urls[api]!, byId('getThread'), { pathParams: { thread_id: 'not-a-uuid' } }));
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([{ loc: ['path', 'thread_id'], msg: expect.stringContaining('uuid'), type: 'uuid_parsing' }]);
  });

  // The mock has no sockets (its front answers 426 where Prism would switch to nothing): a client
  // that asks for the thread's WebSocket learns so at once, and is not left on a dead connection.
  it('connectThreadEvents answers a WebSocket handshake with 426 and the way over HTTP', async () => {
    const request = validRequest(spec, urls[api]!, byId('connectThreadEvents'));
    Object.assign(request.init.headers, {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-version': '13',
    });
    const response = await new Promise<{ status: number; upgrade: unknown; body: any }>((resolve, reject) => {
      const outgoing = http.request(request.url, { headers: request.init.headers }, (incoming) => {
        let text = '';
        incoming.on('data', (chunk) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode!, upgrade: incoming.headers.upgrade, body: JSON.parse(text) }));
      });
      outgoing.on('upgrade', () => reject(new Error('the mock switched protocols')));
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(response.status).toBe(426);
    expect(response.upgrade).toBe('websocket');
    expect(validate('#/components/schemas/ErrorDetail', response.body).errors).toBe('');
    expect(response.body.detail).toContain('/commands');
  });

  it('copyThread accepts no body, and {}', async () => {
    for (const body of [undefined, {}]) {
      const response = await send(validRequest(spec, urls[api]!, byId('copyThread'), { body }));
      expect(response.status).toBe(200);
      expect(validate('#/components/schemas/Thread', response.body).errors).toBe('');
    }
  });
});
