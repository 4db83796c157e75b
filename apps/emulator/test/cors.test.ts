// CORS on both APIs (decision E20): preflights answered before routing and credentials, the
// headers of an allowed origin on every other answer, the default open to any origin, a list of
// origins from the config or createEmulator, and readable errors for a bad one.
import { describe, expect, it } from 'vitest';
import { ConfigError, checkConfig } from '../src/config/config.js';
import { createEmulator } from '../src/emulator.js';
import type { ApiName } from './support/harness.js';
import { jsonRequest, rawRequest, specOf, useEmulator } from './support/harness.js';

const PAGE = 'http://localhost:3000';
const preflight = (path: string, origin: string, method = 'POST', requestHeaders?: string) => ({
  method: 'OPTIONS',
  path,
  headers: {
    origin,
    'access-control-request-method': method,
    ...(requestHeaders ? { 'access-control-request-headers': requestHeaders } : {}),
  },
});

/** Every header some response of the API's spec declares, lower-case. */
function declaredHeaders(api: ApiName): string[] {
  const { spec } = specOf(api);
  const names = new Set<string>();
  for (const item of Object.values<any>(spec.paths))
    for (const operation of Object.values<any>(item))
      for (const declared of Object.values<any>(operation.responses ?? {})) {
        const response = declared.$ref ? spec.components.responses[declared.$ref.split('/').pop()] : declared;
        for (const name of Object.keys(response.headers ?? {})) names.add(name.toLowerCase());
      }
  return [...names].sort();
}

describe('by default, any origin', () => {
  // Keys required on both APIs: a preflight carries none, and must not need one.
  const f = useEmulator({ config: { agent_server: { api_keys: ['agent-key'] } } });

  it('a preflight is answered 204 with no credentials, whatever the path, allowing the headers asked for', async () => {
    for (const [url, path] of [
      [f.emulator.agentServerUrl, '/threads/search'],
      [f.emulator.controlPlaneUrl, '/v2/deployments'],
      [f.emulator.agentServerUrl, '/no/such/path'],
    ] as const) {
      const answer = await rawRequest(url, preflight(path, PAGE, 'POST', 'Content-Type, X-Api-Key,authorization'));
      expect(answer.status, path).toBe(204);
      expect(answer.text).toBe('');
      expect(answer.headers).toMatchObject({
        'access-control-allow-origin': '*',
        // The methods of each API's operations: the agent server's store puts items.
        'access-control-allow-methods': url === f.emulator.agentServerUrl ? 'DELETE, GET, PATCH, POST, PUT' : 'DELETE, GET, PATCH, POST',
        'access-control-allow-headers': 'Content-Type, X-Api-Key, authorization',
        vary: 'access-control-request-headers',
      });
      // `*` and credentials together are refused by browsers; header credentials need neither.
      expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('exposes every header the spec declares on an answer, so a page reads X-Pagination-Total', async () => {
    const search = await rawRequest(
      f.emulator.agentServerUrl,
      jsonRequest('POST', '/threads/search', {}, { origin: PAGE, 'x-api-key': 'agent-key' }),
    );
    expect(search.status).toBe(200);
    expect(search.headers['access-control-allow-origin']).toBe('*');
    expect(search.headers['x-pagination-total']).toBeDefined();
    const exposed = search.headers['access-control-expose-headers']!.split(', ');
    // Location too: a streamed run's, where the SDK reconnects after a broken stream; Upgrade, the
    // protocol a WebSocket path asks for (426).
    expect(exposed).toEqual(['content-location', 'location', 'preference-applied', 'upgrade', 'x-pagination-next', 'x-pagination-total']);
    // Connection describes the connection (413's), not something a script reads.
    expect(exposed).toEqual(declaredHeaders('agent-server').filter((name) => name !== 'connection'));
    // The control plane's answers declare no header but Connection: nothing to expose.
    expect(declaredHeaders('control-plane')).toEqual(['connection']);
    const list = await rawRequest(f.emulator.controlPlaneUrl, {
      method: 'GET',
      path: '/v2/deployments',
      headers: { origin: PAGE, 'x-api-key': f.emulator.defaultApiKey! },
    });
    expect(list.status).toBe(200);
    expect(list.headers['access-control-allow-origin']).toBe('*');
    expect(list.headers['access-control-expose-headers']).toBeUndefined();
  });

  it('errors carry the headers too, so a page reads its 401, 404 and 405', async () => {
    const unauthorised = await rawRequest(f.emulator.agentServerUrl, jsonRequest('POST', '/threads/search', {}, { origin: PAGE }));
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers['access-control-allow-origin']).toBe('*');
    // An OPTIONS that is not a preflight is no operation of the API: still its 404 or 405.
    const notFound = await rawRequest(f.emulator.agentServerUrl, { method: 'OPTIONS', path: '/no/such/path', headers: { origin: PAGE } });
    expect(notFound.status).toBe(404);
    expect(notFound.headers['access-control-allow-origin']).toBe('*');
    const notAllowed = await rawRequest(f.emulator.agentServerUrl, { method: 'OPTIONS', path: '/threads/search' });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.allow).toBe('POST');
  });
});

describe('a configured list of origins', () => {
  const f = useEmulator({ config: { cors: { origins: [PAGE, 'HTTPS://App.Example:443'] } } });

  it('a listed origin is echoed, with credentials, and every answer varies by Origin', async () => {
    const answer = await rawRequest(f.emulator.agentServerUrl, preflight('/threads', PAGE, 'POST', 'x-api-key'));
    expect(answer.status).toBe(204);
    expect(answer.headers).toMatchObject({
      'access-control-allow-origin': PAGE,
      'access-control-allow-credentials': 'true',
      'access-control-allow-headers': 'x-api-key',
      vary: 'access-control-request-headers, origin',
    });
    // A configured origin is compared as browsers write it: lower case, no default port.
    const normalised = await rawRequest(f.emulator.controlPlaneUrl, preflight('/v2/deployments', 'https://app.example', 'GET'));
    expect(normalised.headers['access-control-allow-origin']).toBe('https://app.example');
    const created = await rawRequest(f.emulator.agentServerUrl, jsonRequest('POST', '/threads', {}, { origin: PAGE }));
    expect(created.status).toBe(200);
    expect(created.headers).toMatchObject({ 'access-control-allow-origin': PAGE, vary: 'origin' });
  });

  it('another origin gets no allow headers: a 403 preflight saying why, and answers the browser cannot read', async () => {
    const refused = await rawRequest(f.emulator.agentServerUrl, preflight('/threads', 'http://localhost:3001', 'POST', 'x-api-key'));
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ detail: "Origin http://localhost:3001 is not allowed: the emulator's cors.origins does not list it." });
    expect(Object.keys(refused.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(refused.headers.vary).toBe('origin');
    const answered = await rawRequest(f.emulator.agentServerUrl, jsonRequest('POST', '/threads', {}, { origin: 'http://localhost:3001' }));
    expect(answered.status).toBe(200);
    expect(answered.headers['access-control-allow-origin']).toBeUndefined();
    expect(answered.headers.vary).toBe('origin');
    // Without an Origin (curl, a server) nothing changes but Vary.
    const plain = await rawRequest(f.emulator.agentServerUrl, { method: 'GET', path: '/ok' });
    expect(plain.status).toBe(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('createEmulator({ cors })', () => {
  it('replaces the config, in process too', async () => {
    const emulator = createEmulator({ config: { cors: { origins: ['http://other.example'] } }, cors: { origins: [PAGE] } });
    try {
      const { url, fetch } = emulator.agentServer;
      const allowed = await fetch(`${url}/threads/search`, {
        method: 'OPTIONS',
        headers: { origin: PAGE, 'access-control-request-method': 'POST' },
      });
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(PAGE);
      const other = await fetch(`${url}/ok`, { headers: { origin: 'http://other.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      emulator.close();
    }
    const open = createEmulator({ cors: { origins: '*' } });
    try {
      const answer = await open.controlPlane.fetch(`${open.controlPlane.url}/v2/deployments`, { headers: { origin: PAGE } });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      open.close();
    }
  });

  it('a bad origin is refused at start-up, saying what fits', () => {
    expect(() => createEmulator({ cors: { origins: ['http://localhost:3000/'] } })).toThrow(ConfigError);
    expect(() => createEmulator({ cors: { origins: ['http://localhost:3000/'] } })).toThrow(
      'the cors option is invalid:\n  cors.origins[0]: "http://localhost:3000/" does not fit; expected an origin, scheme://host[:port] with no path nor trailing slash (http://localhost:3000), or *',
    );
  });
});

describe('the config key', () => {
  it('takes * or a list of origins; anything else is one readable line per problem', () => {
    expect(checkConfig({ cors: { origins: '*' } }).cors).toEqual({ origins: '*' });
    expect(checkConfig({ cors: { origins: [] } }).cors).toEqual({ origins: [] });
    expect(() => checkConfig({ cors: { origins: 'localhost:3000' } }, 'emulator.yaml')).toThrow(
      'emulator.yaml is invalid:\n  cors.origins: "localhost:3000" does not fit; expected * (any origin) or a list of origins',
    );
    expect(() => checkConfig({ cors: { origins: ['http://a.example/app', 3] } })).toThrow(
      [
        'config is invalid:',
        '  cors.origins[0]: "http://a.example/app" does not fit; expected an origin, scheme://host[:port] with no path nor trailing slash (http://localhost:3000), or *',
        '  cors.origins[1]: 3 is not a string',
      ].join('\n'),
    );
    expect(() => checkConfig({ cors: { origin: [PAGE] } })).toThrow(
      'config is invalid:\n  cors.origins: missing; it is required\n  cors.origin: unknown key; did you mean origins? allowed here: origins',
    );
  });
});
