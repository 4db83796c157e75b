// The agentplane CLI (the built package) against the Prism mock of the control plane: each
// command's requests are valid for the contract, and the mock's examples come out as the
// CLI's documented output and exit codes. Prism is stateless and answers from the spec's first
// examples, so these check the wiring; the behaviour over time (statuses advancing, failures,
// idempotency) is tested against the fake in packages/cli and, later, the emulator.
import { run } from '@agentplane/cli';
import { loadBundle } from '@agentplane/openapi-toolkit';
import { describe, expect, inject, it } from 'vitest';

const urls = inject('mockUrls');
const spec = loadBundle('control-plane');
const example = (name: string) => spec.components.examples[name].value;
const DEPLOYMENT_ID = '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50';

async function agentplane(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    env: { AGENTPLANE_BASE_URL: urls['control-plane']!, AGENTPLANE_API_KEY: 'cli-contract-key', CI: 'true' },
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

describe('agentplane CLI against the control plane mock', () => {
  it('pool get and provider get print the pool and the provider', async () => {
    const pool = await agentplane(['pool', 'get', 'python-pool', '--json']);
    expect(pool.code, pool.stderr).toBe(0);
    expect(pool.json()).toEqual({ pool: example('SandboxPoolPython') });
    const provider = await agentplane(['provider', 'get', 'github', '--json']);
    expect(provider.code, provider.stderr).toBe(0);
    expect(provider.json()).toEqual({ provider: example('OAuthProviderGithub') });
  });

  it('status reads the deployment and its latest revision', async () => {
    const result = await agentplane(['status', DEPLOYMENT_ID, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toEqual({ deployment: example('DeploymentGitHostDeployed'), revision: example('RevisionBuilding') });
  });

  it('revisions reads the listing (listRevisions) and stops at the short page', async () => {
    const result = await agentplane(['revisions', DEPLOYMENT_ID, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json().revisions).toEqual(example('RevisionListHistory').resources);
  });

  it('deploy finds an existing deployment by exact name (listDeployments) and updates it', async () => {
    const result = await agentplane([
      'deploy',
      'billing-agent',
      '--image',
      'registry.acme.internal/agents/billing-agent:1.9.0',
      '--no-wait',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toEqual({
      // The mock is stateless: the PATCH answers the operation's first 200 example whatever it was sent.
      deployment: example('DeploymentGitHostReleasingTag'),
      revision: example('RevisionBuilding'),
      created: false,
    });
    expect(result.stderr).toContain('Updating deployment billing-agent (9d4c2b1a-7e6f-4a5b-8c3d-2e1f0a9b8c71)');
  });

  it('deploy creates a deployment whose name is not listed', async () => {
    const result = await agentplane(['deploy', 'billing', '--image', 'registry.acme.internal/agents/billing:2.0.0', '--no-wait', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toMatchObject({ created: true, deployment: example('DeploymentGitHostCreated') });
  });

  it('wait times out (exit 2) on a revision the mock always reports BUILDING', async () => {
    const result = await agentplane(['wait', DEPLOYMENT_ID, '--interval', '100ms', '--timeout', '500ms']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/still BUILDING/);
  });

  it('delete deletes (204) by ID', async () => {
    const result = await agentplane(['delete', DEPLOYMENT_ID]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`Deleted deployment support-agent (${DEPLOYMENT_ID}) and its revisions.\n`);
  });

  it('a 422 of the mock names the argument (exit 3)', async () => {
    const result = await agentplane(['pool', 'get', 'Python_Pool']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('<name> (path.name)');
  });
});
