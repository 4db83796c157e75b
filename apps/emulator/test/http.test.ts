// The HTTP layer's answers to requests that never reach a handler (unknown routes, wrong methods,
// content types, invalid or deep JSON, oversized bodies, missing bodies), the agent server's
// optional API key, and the loud failure when a handler answers against the spec.
import { describe, expect, it } from 'vitest';
import { loadContract } from '../src/contract/api-contract.js';
import { JsonText } from '../src/contract/json-text.js';
import { createApiHandler } from '../src/http/api-handler.js';
import { createAuthenticator } from '../src/http/authenticator.js';
import { createFetchHandler } from '../src/http/fetch-handler.js';
import type { AnyHandlers, RawAnswer } from '../src/http/handler-types.js';
import { jsonRequest, rawRequest, useEmulator } from './support/harness.js';

const f = useEmulator({ config: { agent_server: { api_keys: ['agent-key'] } } });
const json = { 'content-type': 'application/json', 'x-api-key': 'agent-key' };

describe('transport-level errors', () => {
  it('unknown routes 404, wrong methods 405 with Allow', async () => {
    const unknown = await fetch(`${f.emulator.agentServerUrl}/nope`, { headers: json });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Not Found' });
    const wrong = await fetch(`${f.emulator.agentServerUrl}/threads`, { method: 'DELETE', headers: json });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(await wrong.json()).toEqual({ detail: 'Method Not Allowed' });
  });

  it('a body that is not JSON: 415 for another content type, 422 json_invalid for bad JSON', async () => {
    const form = await fetch(`${f.emulator.agentServerUrl}/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': 'agent-key' },
      body: '{}',
    });
    expect(form.status).toBe(415);
    expect((await form.json()).detail).toBe(
      'Unsupported Content-Type "application/x-www-form-urlencoded": send the body as application/json or text/plain.',
    );
    const none = await fetch(`${f.emulator.agentServerUrl}/threads`, {
      method: 'POST',
      headers: { 'x-api-key': 'agent-key' },
      body: new Blob(['{}']),
    });
    expect([none.status, (await none.json()).detail]).toEqual([415, expect.stringMatching(/^Unsupported Content-Type \(none\)/)]);
    // The control plane reads application/json only.
    const plainToControlPlane = await fetch(`${f.emulator.controlPlaneUrl}/v2/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-api-key': f.emulator.defaultApiKey! },
      body: '{}',
    });
    expect(plainToControlPlane.status).toBe(415);
    const bad = await fetch(`${f.emulator.agentServerUrl}/threads`, { method: 'POST', headers: json, body: '{"metadata": ' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail[0]).toMatchObject({ loc: ['body', expect.any(Number)], type: 'json_invalid' });
    const charset = await fetch(`${f.emulator.agentServerUrl}/threads`, {
      method: 'POST',
      headers: { ...json, 'content-type': 'application/json; charset=utf-8' },
      body: '{}',
    });
    expect(charset.status).toBe(200);
  });

  it('reads a text/plain body as JSON, as LangGraph Studio sends it; plain text that is not JSON is a 415', async () => {
    const plain = { 'content-type': 'text/plain;charset=UTF-8', 'x-api-key': 'agent-key' };
    const created = await fetch(`${f.emulator.agentServerUrl}/threads`, {
      method: 'POST',
      headers: plain,
      body: JSON.stringify({ metadata: { studio: true } }),
    });
    expect(created.status).toBe(200);
    const thread = await created.json();
    expect(thread.metadata).toEqual({ studio: true });
    const found = await fetch(`${f.emulator.agentServerUrl}/threads/search`, {
      method: 'POST',
      headers: plain,
      body: JSON.stringify({ ids: [thread.thread_id] }),
    });
    expect([found.status, (await found.json()).map((t: { thread_id: string }) => t.thread_id)]).toEqual([200, [thread.thread_id]]);
    // JSON sent as text/plain is held to the same contract as JSON sent as application/json.
    const unknownField = await fetch(`${f.emulator.agentServerUrl}/threads/search`, {
      method: 'POST',
      headers: plain,
      body: '{"nope": 1}',
    });
    expect([unknownField.status, (await unknownField.json()).detail[0].loc]).toEqual([422, ['body', 'nope']]);
    const before = (await (
      await fetch(`${f.emulator.agentServerUrl}/threads/count`, { method: 'POST', headers: json, body: '{}' })
    ).json()) as number;
    const text = await fetch(`${f.emulator.agentServerUrl}/threads`, { method: 'POST', headers: plain, body: 'hello, agent' });
    expect([text.status, (await text.json()).detail]).toEqual([
      415,
      'Unsupported Content-Type "text/plain" with a body that is not JSON: send the body as application/json or text/plain.',
    ]);
    const after = (await (
      await fetch(`${f.emulator.agentServerUrl}/threads/count`, { method: 'POST', headers: json, body: '{}' })
    ).json()) as number;
    expect(after).toBe(before);
  });

  it('a missing required body is a 422 on body; nesting beyond the limit is a 422, not a crash', async () => {
    const none = await fetch(`${f.emulator.agentServerUrl}/threads/search`, { method: 'POST', headers: json });
    expect(await none.json()).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
    const deep = `{"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const answer = await fetch(`${f.emulator.agentServerUrl}/threads`, { method: 'POST', headers: json, body: deep });
    expect(answer.status).toBe(422);
    expect((await answer.json()).detail[0]).toMatchObject({ loc: ['body'], type: 'json_too_deep' });
  });

  it('an oversized body is a 413 and the emulator keeps serving', async () => {
    const huge = JSON.stringify({ metadata: { blob: 'x'.repeat(11 * 1024 * 1024) } });
    const answer = await fetch(`${f.emulator.agentServerUrl}/threads`, { method: 'POST', headers: json, body: huge });
    expect(answer.status).toBe(413);
    expect((await answer.json()).detail).toMatch(/larger than/);
    expect((await fetch(`${f.emulator.agentServerUrl}/threads`, { method: 'POST', headers: json, body: '{}' })).status).toBe(200);
  });

  it('the agent server requires X-Api-Key when the config lists keys', async () => {
    const cases = [
      [{ 'content-type': 'application/json' }, 'Missing X-Api-Key header.'],
      [{ 'content-type': 'application/json', 'x-api-key': 'wrong' }, 'Invalid API key.'],
    ] as const;
    for (const [headers, detail] of cases) {
      const answer = await fetch(`${f.emulator.agentServerUrl}/threads`, { method: 'POST', headers, body: '{}' });
      expect(answer.status).toBe(401);
      expect(await answer.json()).toEqual({ detail });
    }
  });
});

describe('hostile input: refused where the spec says, never a 500, nothing stored', () => {
  const detailOf = async (path: string) => {
    const answer = await rawRequest(f.emulator.controlPlaneUrl, {
      method: 'GET',
      path,
      headers: { 'x-api-key': f.emulator.defaultApiKey! },
    });
    return { status: answer.status, detail: (answer.json as { detail: unknown }).detail };
  };

  it('reads query integers in decimal digits only, within the declared maximum', async () => {
    for (const [query, type] of [
      ['limit=0x10', 'int_parsing'],
      ['limit=1e1', 'int_parsing'],
      ['limit=%2B5', 'int_parsing'],
      ['offset=1E400', 'int_parsing'],
      ['offset=5.0', 'int_parsing'],
      ['offset=18446744073709551616', 'less_than_equal'],
      ['offset=9007199254740992', 'less_than_equal'],
    ]) {
      const answer = await detailOf(`/v2/deployments?${query}`);
      expect(answer, query).toMatchObject({ status: 422, detail: [{ loc: ['query', query!.split('=')[0]], type }] });
    }
    expect((await detailOf('/v2/deployments?offset=9007199254740991&limit=007')).status).toBe(200);
  });

  it('refuses a query parameter whose escaped bytes are not UTF-8, and ignores undeclared ones', async () => {
    expect(await detailOf('/v2/deployments?name_contains=%FF')).toMatchObject({
      status: 422,
      detail: [{ loc: ['query', 'name_contains'], type: 'string_unicode' }],
    });
    expect((await detailOf('/v2/deployments?unknown=%FF&also=0x10')).status).toBe(200);
  });

  it('refuses offsets beyond 2^53 - 1 and non-finite numbers in a search body with a 422 naming the field', async () => {
    for (const [offset, type] of [
      ['9223372036854775807', 'less_than_equal'],
      ['18446744073709551616', 'less_than_equal'],
      ['1e308', 'less_than_equal'],
      ['1E400', 'finite_number'],
    ]) {
      const answer = await rawRequest(f.emulator.agentServerUrl, {
        method: 'POST',
        path: '/threads/search',
        headers: json,
        body: `{"offset": ${offset}}`,
      });
      expect({ status: answer.status, detail: (answer.json as any).detail }, offset).toMatchObject({
        status: 422,
        detail: [{ loc: ['body', 'offset'], type }],
      });
    }
  });

  it('refuses a body that is not UTF-8 with a 400, and stores nothing of it', async () => {
    const name = Buffer.concat([
      Buffer.from('{"name": "caf'),
      Buffer.from([0xe9]),
      Buffer.from('", "source": "external_container", "source_revision_config": {"image_uri": "r/a:1"}}'),
    ]);
    const answer = await rawRequest(f.emulator.controlPlaneUrl, {
      method: 'POST',
      path: '/v2/deployments',
      headers: { 'content-type': 'application/json', 'x-api-key': f.emulator.defaultApiKey! },
      body: name,
    });
    expect(answer.status).toBe(400);
    expect((answer.json as { detail: string }).detail).toBe(
      'Request body is not valid UTF-8 (invalid sequence at byte 13: 0xE9 0x22 0x2C 0x20).',
    );
    const listed = await rawRequest(f.emulator.controlPlaneUrl, {
      method: 'GET',
      path: '/v2/deployments?name_contains=caf',
      headers: { 'x-api-key': f.emulator.defaultApiKey! },
    });
    expect(listed.json).toEqual({ resources: [], offset: 0 });
  });

  it('does not read the body of an operation that declares none, whatever its size', async () => {
    const created = await rawRequest(f.emulator.agentServerUrl, jsonRequest('POST', '/threads', {}, { 'x-api-key': 'agent-key' }));
    const threadId = (created.json as { thread_id: string }).thread_id;
    const answer = await rawRequest(f.emulator.agentServerUrl, {
      method: 'GET',
      path: `/threads/${threadId}`,
      headers: json,
      body: 'x'.repeat(11 * 1024 * 1024),
    });
    expect(answer.status).toBe(200);
  });
});

describe('response validation', () => {
  const anonymous = createAuthenticator({ schemes: {}, anonymous: {}, requireCredentials: false });
  /** These handlers store nothing: no answer waits for a commit. */
  const commits = { afterCommit: (then: (committed: boolean) => void) => then(true), read: <T>(work: () => T) => work() };
  /** The agent server's HTTP layer with every handler answering `answer`, reached in process. */
  const layerAnswering = (answer: RawAnswer, validateResponses: boolean, reported: string[] = []) => {
    const contract = loadContract('agent-server');
    const handlers: AnyHandlers<object> = Object.fromEntries(contract.operations.map((op) => [op.operationId, () => answer]));
    const handle = createApiHandler({
      contract,
      handlers,
      authenticator: anonymous,
      validateResponses,
      onContractViolation: (m) => reported.push(m),
      commits,
    });
    return createFetchHandler(handle);
  };

  it('turns an answer that breaks the spec into a loud 500 and reports it', async () => {
    const reported: string[] = [];
    const fetchLayer = layerAnswering({ status: 200, body: { thread_id: 'not-a-uuid' } }, true, reported);
    const answer = await fetchLayer('http://agent-server.test/threads/8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f');
    expect(answer.status).toBe(500);
    expect((await answer.json()).detail).toMatch(/contract violation: getThread answered 200/);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/must have required property 'created_at'|must match format "uuid"/);
  });

  it('refuses to start when handlers and spec operations differ', () => {
    const contract = loadContract('control-plane');
    const handlers = { getDeployment: () => ({ status: 200 }), listWidgets: () => ({ status: 200 }) };
    expect(() => createApiHandler({ contract, handlers, authenticator: anonymous, validateResponses: true, commits })).toThrow(
      /missing [^;]*createDeployment[^;]*; not in the spec listWidgets/,
    );
  });

  it('sends an answer given as JSON text as it is, and checks that text against the spec too', async () => {
    const url = 'http://agent-server.test/threads/8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f';
    const text =
      '{"thread_id":"8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f","created_at":"2026-11-23T10:00:00.000Z","updated_at":"2026-11-23T10:00:00.000Z","state_updated_at":"2026-11-23T10:00:00.000Z","metadata":{"b":1,"a":2},"status":"idle","config":{}}';
    const valid = await layerAnswering({ status: 200, body: new JsonText(text) }, true)(url);
    expect(valid.status).toBe(200);
    expect(valid.headers.get('content-type')).toBe('application/json');
    expect(await valid.text()).toBe(text);

    const reported: string[] = [];
    const broken = await layerAnswering({ status: 200, body: new JsonText('{"thread_id":"not-a-uuid"}') }, true, reported)(url);
    expect(broken.status).toBe(500);
    expect(reported[0]).toMatch(/getThread answered 200 against the spec/);
  });

  it('is off in production mode: answers pass through unchecked', async () => {
    const fetchLayer = layerAnswering({ status: 200, body: { anything: true } }, false);
    const answer = await fetchLayer('http://agent-server.test/threads/8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f');
    expect(answer.status).toBe(200);
  });
});
