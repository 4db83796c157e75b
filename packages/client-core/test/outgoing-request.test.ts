// The light request openapi-fetch builds through createApiClient: it must reach fetch with
// everything the call said, stay compatible with middleware, and give a user-supplied fetch a
// real Request.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../src/create-client.js';
import { OutgoingRequest, sendRequest } from '../src/outgoing-request.js';

type TestPaths = {
  '/items/{id}': {
    parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
    get: {
      parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
      requestBody?: never;
      responses: { 200: { headers: { [name: string]: unknown }; content: { 'application/json': { id: string } } } };
    };
    post: {
      parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
      requestBody: { content: { 'application/json': { name: string } } };
      responses: { 200: { headers: { [name: string]: unknown }; content: { 'application/json': { id: string } } } };
    };
  };
};

afterEach(() => vi.unstubAllGlobals());

describe('OutgoingRequest', () => {
  it('passes for a Request where openapi-fetch checks, and converts to a real one', async () => {
    const request = new OutgoingRequest('http://api.test/items/1', {
      method: 'post',
      headers: { 'x-a': '1' },
      body: '{"name":"n"}',
      redirect: 'follow',
    });
    expect(request).toBeInstanceOf(Request);
    expect(OutgoingRequest.isOutgoing(request)).toBe(true);
    expect(OutgoingRequest.isOutgoing(new Request('http://api.test'))).toBe(false);
    expect(new Request('http://api.test')).toBeInstanceOf(OutgoingRequest);
    expect(request.method).toBe('POST');
    expect(await request.json()).toEqual({ name: 'n' });
    const real = request.toRequest();
    expect(real.headers.get('x-a')).toBe('1');
    expect(await real.text()).toBe('{"name":"n"}');
    const copy = request.clone();
    copy.headers.set('x-a', '2');
    expect(request.headers.get('x-a')).toBe('1');
  });

  it('sends url and init straight to the global fetch, and a real Request to a user fetch', async () => {
    const global = vi.fn(async (..._args: unknown[]) => new Response('{}'));
    vi.stubGlobal('fetch', global);
    const request = new OutgoingRequest('http://api.test/items/1', { method: 'GET', headers: { 'x-a': '1' } });
    await sendRequest(request);
    expect(global.mock.calls[0]![0]).toBe('http://api.test/items/1');
    expect((global.mock.calls[0]![1] as RequestInit).method).toBe('GET');
    const user = vi.fn(async (input: Request) => new Response(input.headers.get('x-a')));
    expect(await (await sendRequest(request, user)).text()).toBe('1');
    expect(user.mock.calls[0]![0]).toBeInstanceOf(Request);
  });
});

describe('OutgoingRequest without copies', () => {
  it('adopts a Headers object given in init; clone() copies it', () => {
    const headers = new Headers({ 'x-a': '1' });
    const request = new OutgoingRequest('http://api.test/items/1', { headers });
    expect(request.headers).toBe(headers);
    const copy = request.clone();
    expect(copy.headers).not.toBe(headers);
    copy.headers.set('x-a', '2');
    expect(headers.get('x-a')).toBe('1');
    expect(copy.headers.get('x-a')).toBe('2');
  });

  it('hands fetch the init it was built from while that still holds, else a copy with the current fields', () => {
    const signal = new AbortController().signal;
    const init: RequestInit = {
      method: 'POST',
      headers: new Headers({ 'x-a': '1' }),
      body: '{}',
      signal,
      redirect: 'follow',
      cache: 'no-store',
    };
    const request = new OutgoingRequest('http://api.test/items/1', init);
    expect(request.fetchInit()).toBe(init);
    expect(request.init).toEqual({ redirect: 'follow', cache: 'no-store' });
    // Middleware may set the own properties; what fetch gets follows them.
    const mutable = request as { -readonly [K in keyof OutgoingRequest]: OutgoingRequest[K] };
    mutable.body = '{"b":2}';
    const changed = request.fetchInit();
    expect(changed).not.toBe(init);
    expect(changed).toMatchObject({
      method: 'POST',
      body: '{"b":2}',
      headers: request.headers,
      signal,
      redirect: 'follow',
      cache: 'no-store',
    });
    mutable.signal = undefined;
    expect('signal' in request.fetchInit()).toBe(false);
    // A method that needs normalizing is not sent as given.
    const lower = new OutgoingRequest('http://api.test/items/1', { method: 'patch', headers: new Headers() });
    expect(lower.fetchInit().method).toBe('PATCH');
    // Plain-object headers become a Headers of the request's own.
    const plain = { 'x-b': '2' };
    const fromPlain = new OutgoingRequest('http://api.test/items/1', { headers: plain });
    expect(fromPlain.headers.get('x-b')).toBe('2');
    expect(fromPlain.fetchInit().headers).toBe(fromPlain.headers);
  });

  it('reaches the global fetch with the credential and the init openapi-fetch built, not a copy', async () => {
    const global = vi.fn(async (..._args: unknown[]) => Response.json({ id: '1' }));
    vi.stubGlobal('fetch', global);
    const client = createApiClient<TestPaths>(
      { baseUrl: 'http://api.test' },
      { isRetryable: () => true, credentials: { 'X-Api-Key': 'k' } },
    );
    expect((await client.GET('/items/{id}', { params: { path: { id: 'x/y' } } })).data).toEqual({ id: '1' });
    const [url, init] = global.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('http://api.test/items/x%2Fy');
    expect(init.method).toBe('GET');
    expect(init.redirect).toBe('follow');
    expect((init.headers as Headers).get('x-api-key')).toBe('k');
  });
});

describe('createApiClient', () => {
  it('sends the path, query, credential headers, body and signal of each call', async () => {
    const seen: Request[] = [];
    const client = createApiClient<TestPaths>(
      {
        baseUrl: 'http://api.test/',
        headers: { 'x-client': 'c' },
        fetch: async (request) => {
          seen.push(request);
          return Response.json({ id: '1' });
        },
      },
      { isRetryable: () => true, credentials: { 'X-Api-Key': 'k' } },
    );
    const controller = new AbortController();
    const result = await client.POST('/items/{id}', { params: { path: { id: 'a b' } }, body: { name: 'n' }, signal: controller.signal });
    expect(result.data).toEqual({ id: '1' });
    const [request] = seen;
    expect(request!.url).toBe('http://api.test/items/a%20b');
    expect(request!.method).toBe('POST');
    expect(request!.headers.get('x-api-key')).toBe('k');
    expect(request!.headers.get('x-client')).toBe('c');
    expect(request!.headers.get('content-type')).toBe('application/json');
    expect(await request!.json()).toEqual({ name: 'n' });
    controller.abort();
    expect(request!.signal.aborted).toBe(true);
  });

  it('works with user middleware that returns the request, or a new Request', async () => {
    const seen: Request[] = [];
    const client = createApiClient<TestPaths>(
      {
        baseUrl: 'http://api.test',
        fetch: async (r) => {
          seen.push(r);
          return Response.json({ id: '1' });
        },
      },
      { isRetryable: () => false },
    );
    client.use({
      onRequest: ({ request }) => {
        request.headers.set('x-one', '1');
        return request;
      },
    });
    client.use({
      onRequest: ({ request }) =>
        new Request(request.url, { method: request.method, headers: [...request.headers.entries(), ['x-two', '2']] }),
    });
    const result = await client.GET('/items/{id}', { params: { path: { id: '7' } } });
    expect(result.data).toEqual({ id: '1' });
    expect(seen[0]!.headers.get('x-one')).toBe('1');
    expect(seen[0]!.headers.get('x-two')).toBe('2');
  });

  it('re-sends the same body on each retry', async () => {
    const bodies: string[] = [];
    const client = createApiClient<TestPaths>(
      {
        baseUrl: 'http://api.test',
        retry: { baseDelayMs: 1, random: () => 0 },
        fetch: async (r) => {
          bodies.push(await r.text());
          return bodies.length < 3 ? new Response('', { status: 503 }) : Response.json({ id: '1' });
        },
      },
      { isRetryable: () => true },
    );
    expect((await client.POST('/items/{id}', { params: { path: { id: '1' } }, body: { name: 'n' } })).data).toEqual({ id: '1' });
    expect(bodies).toEqual(['{"name":"n"}', '{"name":"n"}', '{"name":"n"}']);
  });
});
