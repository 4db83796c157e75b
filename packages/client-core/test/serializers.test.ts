// The serializers given to openapi-fetch must answer exactly what its defaults answer: the path
// serializer for the simple parameters it handles itself and for every case it hands over, the
// query serializer (made once instead of per call) for every style, with per-call options too.
import { createQuerySerializer, defaultPathSerializer } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../src/create-client.js';
import { pathSerializer } from '../src/path-serializer.js';

const cases: [string, Record<string, unknown>][] = [
  ['http://api.test/v2/sandboxes/pools/{name}', { name: 'python-pool' }],
  ['http://api.test/threads/{thread_id}/state/{checkpoint_id}', { thread_id: 't 1', checkpoint_id: 'c/2' }],
  ['http://api.test/a/{x}/b/{y}', { x: "?#&=$'!*()~ é", y: 7 }],
  ['http://api.test/a/{x}/b/{y}', { x: true, y: 0 }],
  ['http://api.test/a/{x}/b/{y}', { y: 'only-y' }], // missing: stays as written
  ['http://api.test/a/{x}/b/{y}', { x: null, y: undefined }],
  ['http://api.test/a/{x}/{x}', { x: 'twice' }],
  ['http://api.test/a/{x}', {}],
  ['http://api.test/a', { x: 1 }],
  ['http://api.test/{x', { x: 1 }], // unclosed
  ['http://api.test/x}/{x}', { x: 1 }],
  ['http://api.test/{}/{x}', { x: 1 }], // empty name
  ['http://api.test/{a{b}/{x}', { b: 'B', x: 1 }], // nested brace
  ['http://api.test/{.x}/{y}', { x: 'l', y: 'm' }], // label
  ['http://api.test/{;x}/{y}', { x: 'm', y: 'n' }], // matrix
  ['http://api.test/{x*}/{y}', { x: ['a', 'b'], y: 'n' }], // explode
  ['http://api.test/{x}/{y}', { x: ['a', 'b'], y: 'n' }], // array
  ['http://api.test/{x}/{y}', { x: { k: 'v', l: 'w' }, y: 'n' }], // object
  ['http://api.test/{y}/{x}', { x: { k: 'v' }, y: 'n' }], // object after a simple one
];

describe('pathSerializer', () => {
  it.each(cases)('answers what defaultPathSerializer answers for %s %j', (pathname, params) => {
    expect(pathSerializer(pathname, params)).toBe(defaultPathSerializer(pathname, params));
  });

  it('is what the clients build URLs with', async () => {
    const seen: string[] = [];
    type Paths = {
      '/a/{x}/{y}': {
        parameters: { query?: never; header?: never; path: { x: string; y: number }; cookie?: never };
        get: {
          parameters: { query?: never; header?: never; path: { x: string; y: number }; cookie?: never };
          requestBody?: never;
          responses: { 204: { headers: { [name: string]: unknown }; content?: never } };
        };
      };
    };
    const client = createApiClient<Paths>(
      {
        baseUrl: 'http://api.test',
        fetch: async (r) => {
          seen.push(r.url);
          return new Response(null, { status: 204 });
        },
      },
      { isRetryable: () => false },
    );
    await client.GET('/a/{x}/{y}', { params: { path: { x: 'p q', y: 3 } } });
    expect(seen).toEqual(['http://api.test/a/p%20q/3']);
  });
});

describe('query serializer', () => {
  type Query = {
    s?: string;
    n?: number;
    b?: boolean;
    list?: string[];
    obj?: Record<string, string>;
    empty?: string[];
    gone?: string | null;
  };
  type Paths = {
    '/q': {
      parameters: { query?: Query; header?: never; path?: never; cookie?: never };
      get: {
        parameters: { query?: Query; header?: never; path?: never; cookie?: never };
        requestBody?: never;
        responses: { 204: { headers: { [name: string]: unknown }; content?: never } };
      };
    };
  };
  const query: Query = { s: 'a b&c', n: 2, b: false, list: ['x', 'y z'], obj: { k: 'v', l: 'w' }, empty: [], gone: null };

  it("serializes every style as openapi-fetch's default does", async () => {
    const seen: string[] = [];
    const client = createApiClient<Paths>(
      {
        baseUrl: 'http://api.test',
        fetch: async (r) => {
          seen.push(r.url);
          return new Response(null, { status: 204 });
        },
      },
      { isRetryable: () => false },
    );
    await client.GET('/q', { params: { query } });
    await client.GET('/q');
    expect(seen).toEqual([`http://api.test/q?${createQuerySerializer()(query)}`, 'http://api.test/q']);
    expect(seen[0]).toBe('http://api.test/q?s=a%20b%26c&n=2&b=false&list=x&list=y%20z&obj[k]=v&obj[l]=w');
  });

  it('still takes per-call serializer options', async () => {
    const seen: string[] = [];
    const client = createApiClient<Paths>(
      {
        baseUrl: 'http://api.test',
        fetch: async (r) => {
          seen.push(r.url);
          return new Response(null, { status: 204 });
        },
      },
      { isRetryable: () => false },
    );
    await client.GET('/q', {
      params: { query: { list: ['x', 'y'], obj: { k: 'v' } } },
      querySerializer: { array: { style: 'form', explode: false }, object: { style: 'form', explode: true } },
    });
    await client.GET('/q', { params: { query: { s: 'x' } }, querySerializer: () => 'custom=1' });
    expect(seen).toEqual(['http://api.test/q?list=x,y&k=v', 'http://api.test/q?custom=1']);
  });
});
