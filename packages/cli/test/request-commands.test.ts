// commandForRequest, held to what the CLI really does: each command line it gives is run against
// the emulator in process, and the CLI must send that operation with that request, less exactly
// the fields reported as unsupported. The deploy requests are the control plane spec's own
// request examples, so a new example the CLI cannot send whole shows up here.
import { listOperations, loadBundle, resolveRef } from '@agentplane/openapi-toolkit';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../src/command-line.js';
import type { ApiRequest } from '../src/request-commands.js';
import { commandForRequest } from '../src/request-commands.js';
import { cli } from './support/cli.js';
import { testControlPlane } from './support/control-plane.js';

const spec = loadBundle('control-plane');
const CONNECTION = ['AGENTPLANE_BASE_URL', 'AGENTPLANE_API_KEY'];
const WAIT_FAST = ['--interval', '1ms', '--timeout', '10s'];

function operation(operationId: string) {
  const found = listOperations(spec).find((o) => o.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId} in the control plane spec`);
  return found;
}

/** The named request-body examples of an operation. */
function bodyExamples(operationId: string): [string, Record<string, any>][] {
  const content = resolveRef(spec, operation(operationId).operation.requestBody).content['application/json'];
  return Object.entries<any>(content.examples).map(([name, example]) => [name, resolveRef(spec, example).value]);
}

/** `METHOD /path` of an operation, its path parameters filled in. */
function call(operationId: string, path: Record<string, string>): string {
  const { method, path: template } = operation(operationId);
  return `${method.toUpperCase()} ${template.replace(/\{(\w+)\}/g, (_, name: string) => path[name]!)}`;
}

/** A copy of the body without the fields at these `body.` paths, emptied objects removed. */
function without(body: Record<string, any>, locations: string[]): Record<string, any> {
  const copy = structuredClone(body);
  for (const location of locations) {
    const keys = location.split('.').slice(1);
    const parents = [copy];
    for (const key of keys.slice(0, -1)) parents.push(parents.at(-1)![key]);
    delete parents.at(-1)![keys.at(-1)!];
    for (let i = parents.length - 1; i > 0; i--) if (Object.keys(parents[i]!).length === 0) delete parents[i - 1]![keys[i - 1]!];
  }
  return copy;
}

function setup(env: Record<string, string> = {}) {
  const server = testControlPlane();
  const run = (argv: string[]) =>
    cli(argv, { env: { AGENTPLANE_BASE_URL: server.baseUrl, AGENTPLANE_API_KEY: server.apiKey, CI: 'true', ...env }, fetch: server.fetch });
  return { server, run };
}

describe('commandForRequest', () => {
  it.each<[string, ApiRequest, { deploymentName?: string }, string[], string[]]>([
    [
      'createDeployment',
      {
        body: {
          name: 'support-agent',
          source: 'git_host',
          source_config: { repo_url: 'https://github.com/acme/support-agent', deployment_type: 'dev' },
          source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
          secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-1' }],
        },
      },
      {},
      [
        'deploy',
        'support-agent',
        '--repo-url',
        'https://github.com/acme/support-agent',
        '--ref',
        'main',
        '--config-path',
        'langgraph.json',
        '--secret',
        'OPENAI_API_KEY',
      ],
      ['body.source_config.deployment_type'],
    ],
    [
      'createDeployment',
      { body: { name: 'billing-agent', source: 'external_container', source_revision_config: { image_uri: 'r/billing:1' } } },
      {},
      ['deploy', 'billing-agent', '--image', 'r/billing:1'],
      [],
    ],
    [
      'updateDeployment',
      { path: { deployment_id: 'd-1' }, body: { source_revision_config: { image_uri: 'r/billing:2' } } },
      { deploymentName: 'billing-agent' },
      ['deploy', 'billing-agent', '--image', 'r/billing:2'],
      [],
    ],
    [
      'updateDeployment',
      {
        path: { deployment_id: 'd-1' },
        body: { source_config: { build_on_push: false }, source_revision_config: { repo_ref: 'refs/tags/v1.4.0' } },
      },
      { deploymentName: 'support-agent' },
      ['deploy', 'support-agent', '--ref', 'refs/tags/v1.4.0'],
      [],
    ],
    [
      'updateDeployment',
      { path: { deployment_id: 'd-1' }, body: { source_config: { build_on_push: true }, source_revision_config: { repo_ref: 'main' } } },
      { deploymentName: 'support-agent' },
      ['deploy', 'support-agent', '--ref', 'main'],
      ['body.source_config.build_on_push'],
    ],
    ['getDeployment', { path: { deployment_id: 'd-1' } }, {}, ['status', 'd-1'], []],
    ['deleteDeployment', { path: { deployment_id: 'd-1' } }, {}, ['delete', 'd-1'], []],
    [
      'listRevisions',
      { path: { deployment_id: 'd-1' }, query: { status: 'DEPLOYED', limit: 5, offset: 0 } },
      {},
      ['revisions', 'd-1', '--status', 'DEPLOYED', '--limit', '5'],
      [],
    ],
    ['listRevisions', { path: { deployment_id: 'd-1' }, query: { offset: 40 } }, {}, ['revisions', 'd-1'], ['query.offset']],
    ['getRevision', { path: { deployment_id: 'd-1', revision_id: 'r-1' } }, {}, ['wait', 'd-1', 'r-1'], []],
    ['createRevision', { path: { deployment_id: 'd-1' } }, {}, ['redeploy', 'd-1'], []],
    ['redeployRevision', { path: { deployment_id: 'd-1', revision_id: 'r-1' } }, {}, ['rollback', 'd-1', '--to', 'r-1'], []],
    [
      'listRevisionLogs',
      { path: { deployment_id: 'd-1', revision_id: 'r-1' }, query: { type: 'build', order: 'desc', limit: 20 } },
      {},
      ['logs', 'd-1', '--revision', 'r-1', '--type', 'build'],
      ['query.order', 'query.limit'],
    ],
    ['getSandboxPool', { path: { name: 'python-pool' } }, {}, ['pool', 'get', 'python-pool'], []],
    ['getOauthProvider', { path: { provider_id: 'github' } }, {}, ['provider', 'get', 'github'], []],
  ])('%s %j', (operationId, request, context, argv, unsupported) => {
    const command = commandForRequest(operationId, request, context);
    expect(command?.argv).toEqual(argv);
    expect(command?.unsupported).toEqual(unsupported);
    expect(() => parseCommandLine(argv)).not.toThrow();
  });

  it('names the environment the command reads: the connection, and each secret by name', () => {
    expect(commandForRequest('getDeployment', { path: { deployment_id: 'd-1' } })?.env).toEqual(CONNECTION);
    const body = { source_revision_config: { image_uri: 'r/a:2' }, secrets: [{ name: 'A', value: '1' }, { name: 'B_KEY' }] };
    expect(commandForRequest('updateDeployment', { body }, { deploymentName: 'a' })).toMatchObject({
      argv: ['deploy', 'a', '--image', 'r/a:2', '--secret', 'A', '--secret', 'B_KEY'],
      env: [...CONNECTION, 'A', 'B_KEY'],
    });
  });

  it.each<[string, string, ApiRequest, { deploymentName?: string }?]>([
    ['an operation no command performs', 'listDeployments', { query: { name_contains: 'billing' } }],
    ['an agent server operation', 'createThread', { body: {} }],
    ['an update without the deployment name', 'updateDeployment', { body: { source_revision_config: { image_uri: 'r/a:2' } } }],
    ['an update that makes no revision', 'updateDeployment', { body: { secrets: [{ name: 'A', value: '1' }] } }, { deploymentName: 'a' }],
    [
      'both sources at once',
      'createDeployment',
      { body: { name: 'a', source: 'external_container', source_revision_config: { image_uri: 'r/a:1', repo_ref: 'main' } } },
    ],
    [
      'a git create without its config path',
      'createDeployment',
      { body: { name: 'a', source: 'git_host', source_config: { repo_url: 'u' }, source_revision_config: { repo_ref: 'main' } } },
    ],
    [
      'secrets that are not a list',
      'createDeployment',
      { body: { name: 'a', source: 'external_container', source_revision_config: { image_uri: 'r' }, secrets: {} } },
    ],
  ])('is undefined for %s', (_, operationId, request, context) => {
    expect(commandForRequest(operationId, request, context)).toBeUndefined();
  });

  it('reports an empty secret list (remove every secret) as unsupported: --secret cannot say it', () => {
    const body = { source_revision_config: { image_uri: 'r/a:2' }, secrets: [] };
    expect(commandForRequest('updateDeployment', { body }, { deploymentName: 'a' })?.unsupported).toEqual(['body.secrets']);
  });

  it('throws naming a path parameter the request lacks', () => {
    expect(() => commandForRequest('getRevision', { path: { deployment_id: 'd-1' } })).toThrow('path.revision_id must be a string');
  });
});

describe("the CLI sends the spec's deploy request examples, less what commandForRequest reports unsupported", () => {
  it.each(bodyExamples('createDeployment'))('createDeployment %s', async (_, body) => {
    const command = commandForRequest('createDeployment', { body })!;
    expect(command).toBeDefined();
    const secrets = Object.fromEntries((body.secrets ?? []).map((s: { name: string; value: string }) => [s.name, s.value]));
    const { server, run } = setup(secrets);
    const result = await run([...command.argv, ...WAIT_FAST]);
    expect(result.code, result.stderr).toBe(0);
    const create = server.requests.find((r) => `${r.method} ${r.path}` === call('createDeployment', {}))!;
    expect(create.body).toEqual(without(body, command.unsupported));
  });

  it.each(bodyExamples('updateDeployment'))('updateDeployment %s', async (name, body) => {
    const command = commandForRequest('updateDeployment', { body }, { deploymentName: 'docs-sample' });
    const revisionFields = ['image_uri', 'repo_ref', 'graph_config_path'].filter((f) => body.source_revision_config?.[f] != null);
    if (!command) {
      expect(revisionFields, `${name}: only an update that makes no revision has no command`).toEqual([]);
      return;
    }
    const secrets = Object.fromEntries((body.secrets ?? []).map((s: { name: string; value: string }) => [s.name, s.value]));
    const { server, run } = setup(secrets);
    const existing = await server.seed(
      body.source_revision_config?.image_uri
        ? { name: 'docs-sample', source: 'external_container', source_revision_config: { image_uri: 'r/docs-sample:1' } }
        : {
            name: 'docs-sample',
            source: 'git_host',
            source_config: { repo_url: 'https://github.com/acme/docs-sample' },
            source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
          },
    );
    const result = await run([...command.argv, ...WAIT_FAST]);
    expect(result.code, result.stderr).toBe(0);
    const update = server.requests.find((r) => `${r.method} ${r.path}` === call('updateDeployment', { deployment_id: existing.id }))!;
    expect(update.body).toEqual(without(body, command.unsupported));
  });
});

describe('the CLI sends the operation commandForRequest names it for', () => {
  it.each<[string, (ids: { deployment: string; revision: string }) => ApiRequest, string[]]>([
    ['getDeployment', ({ deployment }) => ({ path: { deployment_id: deployment } }), []],
    ['deleteDeployment', ({ deployment }) => ({ path: { deployment_id: deployment } }), []],
    ['listRevisions', ({ deployment }) => ({ path: { deployment_id: deployment }, query: { status: 'QUEUED', limit: 5 } }), []],
    ['getRevision', ({ deployment, revision }) => ({ path: { deployment_id: deployment, revision_id: revision } }), WAIT_FAST],
    ['createRevision', ({ deployment }) => ({ path: { deployment_id: deployment } }), WAIT_FAST],
    ['redeployRevision', ({ deployment, revision }) => ({ path: { deployment_id: deployment, revision_id: revision } }), WAIT_FAST],
    [
      'listRevisionLogs',
      ({ deployment, revision }) => ({ path: { deployment_id: deployment, revision_id: revision }, query: { type: 'deploy' } }),
      [],
    ],
    ['getSandboxPool', () => ({ path: { name: 'python-pool' } }), []],
    ['getOauthProvider', () => ({ path: { provider_id: 'github' } }), []],
  ])('%s', async (operationId, request, extra) => {
    const { server, run } = setup();
    const deployment = await server.seed({
      name: 'docs-sample',
      source: 'external_container',
      source_revision_config: { image_uri: 'r/a:1' },
    });
    const sent = request({ deployment: deployment.id, revision: deployment.latest_revision_id });
    const command = commandForRequest(operationId, sent)!;
    const result = await run([...command.argv, ...extra]);
    expect(result.code, result.stderr).toBe(0);
    const calls = server.requests.filter((r) => `${r.method} ${r.path}` === call(operationId, sent.path as Record<string, string>));
    expect(calls.length, `${command.argv.join(' ')} sends ${operationId}`).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(sent.query ?? {})) expect(calls[0]!.query.get(name), name).toBe(String(value));
  });
});
