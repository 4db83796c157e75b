// LangGraph Studio sends its JSON bodies as `text/plain`, and the agent server reads them as JSON
// (its spec's `x-json-media-types`). Prism reads only `application/json`; the mock's front passes
// such a body on as that, so Studio's requests work against the mock as they do against the
// emulator. Other media types stay Prism's to refuse (415).
import { describe, expect, inject, it } from 'vitest';
import { jsonMediaTypes } from '../src/mocks.js';
import { withJsonContentType } from '../src/validation-translator.js';

const agentServer = inject('mockUrls')['agent-server']!;
const controlPlane = inject('mockUrls')['control-plane']!;

describe('bodies in the media types an API reads as JSON', () => {
  it('are the spec’s x-json-media-types: text/plain on the agent server, none on the control plane', () => {
    expect(jsonMediaTypes('agent-server')).toEqual(['text/plain']);
    expect(jsonMediaTypes('control-plane')).toEqual([]);
    expect(withJsonContentType({ 'content-type': 'text/plain;charset=UTF-8', accept: '*/*' }, ['text/plain'])).toEqual({
      'content-type': 'application/json',
      accept: '*/*',
    });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(withJsonContentType(form, ['text/plain'])).toBe(form);
  });

  it('are answered by the agent server mock as application/json bodies are; a form is a 415', async () => {
    const plain = await fetch(`${agentServer}/threads/search`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: '{"limit": 1}',
    });
    expect(plain.status, await plain.clone().text()).toBe(200);
    expect(Array.isArray(await plain.json())).toBe(true);
    const form = await fetch(`${agentServer}/threads/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"limit": 1}',
    });
    expect(form.status).toBe(415);
    const toControlPlane = await fetch(`${controlPlane}/v2/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-api-key': 'any-key' },
      body: '{}',
    });
    expect(toControlPlane.status).toBe(415);
  });
});
