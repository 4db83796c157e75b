// Unit tests of the CLI against the real emulator in process (injected fetch, no network; see
// support/control-plane.ts): usage errors, credentials, output modes, secrets, request bodies,
// error mapping, help. Error answers no emulator would give (a 503, a refused connection) come
// from canned fetch functions.

import { json } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandName } from '../src/commands.js';
import { EXIT, InterruptedError } from '../src/index.js';
import { COMMON_FLAGS } from '../src/options.js';
import { cli } from './support/cli.js';
import { CONTROL_PLANE_CREDENTIALS, testControlPlane } from './support/control-plane.js';

const BASE = 'http://control-plane.test';

function setup(env: Record<string, string> = {}) {
  const server = testControlPlane();
  const run = (args: string[], options: Parameters<typeof cli>[1] = {}) =>
    cli(args, {
      env: { AGENTPLANE_BASE_URL: server.baseUrl, AGENTPLANE_API_KEY: server.apiKey, CI: 'true', ...env },
      fetch: server.fetch,
      ...options,
    });
  return { server, run };
}

const fast = ['--interval', '1ms', '--timeout', '10s'];
const IMAGE = 'registry.test/agents/billing:1.0.0';

describe('help and version', () => {
  it.each(COMMANDS.map((c) => commandName(c)))('`%s --help` prints its usage, flags, examples and exit codes (exit 0)', async (name) => {
    const result = await cli([...name.split(' '), '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: agentplane ${name} `));
    expect(result.stdout).toContain('Examples:');
    expect(result.stdout).toContain('Exit codes:');
    // Every flag the command takes, and none it refuses (conformance takes no --base-url).
    const spec = COMMANDS.find((c) => commandName(c) === name)!;
    for (const flag of spec.flags) expect(result.stdout).toMatch(new RegExp(`--${flag}\\b`));
    for (const flag of COMMON_FLAGS.filter((f) => !spec.flags.includes(f))) expect(result.stdout).not.toContain(`--${flag}`);
    expect(result.stderr).toBe('');
  });

  it('prints the command list for --help, `help`, and no arguments', async () => {
    for (const args of [['--help'], ['-h'], ['help'], []]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(0);
      for (const spec of COMMANDS) expect(result.stdout).toContain(`  ${commandName(spec)} `);
      expect(result.stdout).toContain('130  interrupted');
    }
    expect((await cli(['help', 'deploy'])).stdout).toMatch(/^Usage: agentplane deploy <name>/);
    expect((await cli(['help', 'pool'])).stdout).toMatch(/^Usage: agentplane pool get <name>/);
    expect((await cli(['help', 'provider'])).stdout).toMatch(/^Usage: agentplane provider get/);
    const unknown = await cli(['help', 'deplo']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/unknown command "deplo"/);
    expect((await cli(['deploy', 'x', '-h'])).stdout).toMatch(/^Usage: agentplane deploy/);
  });

  it('prints the version', async () => {
    expect((await cli(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('usage errors exit 3 and say what to do, before any request', () => {
  it.each([
    [['deploi', 'x'], /unknown command "deploi"/, /did you mean `agentplane deploy`/],
    [['deploy'], /`agentplane deploy` needs <name>/, /usage: agentplane deploy <name>/],
    [['status', 'a', 'b'], /too many arguments/, /agentplane status --help/],
    [['pool', 'python-pool'], /`agentplane pool` needs a subcommand; "python-pool" is not one/, /agentplane pool get <name>/],
    [['deploy', 'x', '--imgae', IMAGE], /unknown flag --imgae/, /did you mean --image\?/],
    [['status', 'x', '--image', IMAGE], /--image does not apply to `agentplane status`/, /agentplane status --help/],
    [['deploy', 'x', '--image'], /--image needs a value \(--image <uri>\)/, /deploy --help/],
    [['deploy', 'x'], /nothing to deploy/, /--image <uri>/],
    [['deploy', 'x', '--image', IMAGE, '--ref', 'main'], /cannot be combined/, /one source/],
    [['deploy', 'x', '--image', IMAGE, '--timeout', 'soon'], /--timeout "soon" is not a positive duration/, /90s, 20m/],
    [['deploy', 'x', '--image', IMAGE, '--timeout', '0'], /--timeout "0" is not a positive duration/, /90s/],
    [['deploy', 'a'.repeat(64), '--image', IMAGE], /1 to 63 characters/, undefined],
    [['deploy', 'x', '--image', IMAGE, '--secret', '1BAD=v'], /"1BAD" is not an environment variable name/, /letters, digits and _/],
    [['deploy', 'x', '--image', IMAGE, '--secret', 'A=1', '--secret', 'A=2'], /--secret A is given twice/, /once/],
    [['revisions', 'x', '--status', 'DONE'], /--status "DONE" is not a revision status/, /DEPLOYED/],
    [['revisions', 'x', '--limit', '0'], /--limit "0" is not a positive whole number/, undefined],
    [['wait', 'x', 'not-a-uuid'], /revision "not-a-uuid" is not a revision ID/, /agentplane revisions/],
  ])('%j', async (args, message, hint) => {
    const { server, run } = setup();
    const result = await run(args);
    expect(result.code).toBe(EXIT.USAGE);
    expect(result.stderr).toMatch(new RegExp(`^error: .*${message.source}`, 'm'));
    if (hint) expect(result.stderr).toMatch(new RegExp(`^hint: .*${hint.source}`, 'm'));
    expect(result.stdout).toBe('');
    expect(server.requests).toEqual([]);
  });

  it.each([
    [{ AGENTPLANE_BASE_URL: '' }, /no control plane URL/, /AGENTPLANE_BASE_URL/],
    [{ AGENTPLANE_BASE_URL: 'api.example.com' }, /is not a URL/, /https:\/\/api.example.com/],
    [{ AGENTPLANE_BASE_URL: 'https://api.example.com/v2' }, /ends with \/v2/, /use https:\/\/api.example.com;/],
    [{ AGENTPLANE_API_KEY: '' }, /no credentials/, /--api-key <key> or set AGENTPLANE_API_KEY/],
    [{ AGENTPLANE_BEARER_TOKEN: 'tok' }, /both an API key and a bearer token/, /give one credential/],
    [{ AGENTPLANE_API_KEY: '', AGENTPLANE_TENANT_ID: 'tenant-ci' }, /`agentplane deploy` needs an API key/, /only reads one revision/],
  ])('connection %j', async (env, message, hint) => {
    const { server, run } = setup(env);
    const result = await run(['deploy', 'x', '--image', IMAGE]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(hint);
    expect(server.requests).toEqual([]);
  });

  it('answers --json usage errors with one JSON error document on stdout', async () => {
    const { run } = setup();
    const result = await run(['deploy', 'x', '--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { exit_code: 3, message: 'nothing to deploy', hint: expect.stringContaining('--image') },
    });
  });
});

describe('credentials and headers', () => {
  it('sends the API key, the tenant ID along with it, and a User-Agent', async () => {
    const { server, run } = setup({ AGENTPLANE_TENANT_ID: 'tenant-ci' });
    expect((await run(['pool', 'get', 'python-pool'])).code).toBe(0);
    const headers = server.requests[0]!.headers;
    expect(headers.get('x-api-key')).toBe(server.apiKey);
    expect(headers.get('x-tenant-id')).toBe('tenant-ci');
    expect(headers.get('user-agent')).toMatch(/^agentplane-cli\/\d/);
  });

  it('flags win over environment variables', async () => {
    const { server, run } = setup({ AGENTPLANE_API_KEY: 'wrong', AGENTPLANE_BASE_URL: 'http://elsewhere.test' });
    expect((await run(['pool', 'get', 'python-pool', '--api-key', server.apiKey, '--base-url', server.baseUrl])).code).toBe(0);
    expect(server.requests[0]!.headers.get('x-api-key')).toBe(server.apiKey);
  });

  it.each([
    ['a tenant ID', { AGENTPLANE_TENANT_ID: 'tenant-ci' }, 'x-tenant-id'],
    ['a bearer token', { AGENTPLANE_BEARER_TOKEN: CONTROL_PLANE_CREDENTIALS.bearerToken }, 'authorization'],
  ])('waits by IDs with only %s (getRevision accepts it), sending no API key', async (_, credential, header) => {
    const server = testControlPlane();
    const deployment = await server.seed({ name: 'billing', source: 'external_container', source_revision_config: { image_uri: IMAGE } });
    const result = await cli(['wait', deployment.id, deployment.latest_revision_id, ...fast, '--json'], {
      env: { AGENTPLANE_BASE_URL: server.baseUrl, ...credential },
      fetch: server.fetch,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ deployment: null, revision: { status: 'DEPLOYED' } });
    expect(server.requests.every((r) => r.headers.get('x-api-key') === null && r.headers.get(header) !== null)).toBe(true);
  });

  it('refuses to wait by name with only a tenant ID (exit 3)', async () => {
    const { run } = setup({ AGENTPLANE_API_KEY: '', AGENTPLANE_TENANT_ID: 'tenant-ci' });
    const result = await run(['wait', 'billing']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('needs a deployment ID and a revision ID');
  });
});

describe('deploy requests', () => {
  it('reads --secret NAME from the environment and sends NAME=VALUE as given', async () => {
    const { server, run } = setup({ OPENAI_API_KEY: 'sk-from-env' });
    const result = await run(['deploy', 'billing', '--image', IMAGE, '--secret', 'OPENAI_API_KEY', '--secret', 'MODE=a=b', ...fast]);
    expect(result.code, result.stderr).toBe(0);
    const create = server.requests.find((r) => r.method === 'POST')!;
    expect(create.body).toEqual({
      name: 'billing',
      source: 'external_container',
      source_revision_config: { image_uri: IMAGE },
      secrets: [
        { name: 'OPENAI_API_KEY', value: 'sk-from-env' },
        { name: 'MODE', value: 'a=b' },
      ],
    });
    expect(result.stderr).not.toContain('sk-from-env');
    expect(result.stdout).not.toContain('sk-from-env');
  });

  it('exits 3 when --secret NAME is not in the environment, saying how to set it', async () => {
    const { server, run } = setup();
    const result = await run(['deploy', 'billing', '--image', IMAGE, '--secret', 'OPENAI_API_KEY']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('--secret OPENAI_API_KEY: the environment variable OPENAI_API_KEY is not set');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the hint shows GitHub Actions' own syntax.
    expect(result.stderr).toContain('${{ secrets.OPENAI_API_KEY }}');
    expect(server.requests).toEqual([]);
  });

  it('finds the deployment by exact name among name_contains matches, and PATCHes only the image (and secrets when given)', async () => {
    const { server, run } = setup({ TOKEN: 't0k' });
    await server.seed({ name: 'billing-agent-staging', source: 'external_container', source_revision_config: { image_uri: 'r/a:1' } });
    const target = await server.seed({
      name: 'billing-agent',
      source: 'external_container',
      source_revision_config: { image_uri: 'r/a:1' },
    });
    expect((await run(['deploy', 'billing-agent', '--image', 'r/a:2', ...fast])).code).toBe(0);
    expect((await run(['deploy', 'billing-agent', '--image', 'r/a:3', '--secret', 'TOKEN', ...fast])).code).toBe(0);
    const listing = server.requests.find((r) => r.method === 'GET' && r.path === '/v2/deployments')!;
    expect(listing.query.get('name_contains')).toBe('billing-agent');
    const patches = server.requests.filter((r) => r.method === 'PATCH');
    expect(patches.map((p) => p.path)).toEqual([`/v2/deployments/${target.id}`, `/v2/deployments/${target.id}`]);
    expect(patches.map((p) => p.body)).toEqual([
      { source_revision_config: { image_uri: 'r/a:2' } },
      { source_revision_config: { image_uri: 'r/a:3' }, secrets: [{ name: 'TOKEN', value: 't0k' }] },
    ]);
    expect(server.writes().filter((w) => w.startsWith('POST'))).toEqual([]);
  });

  it('creates git deployments with build_on_push false for a tag, and updates repo_ref / graph_config_path', async () => {
    const { server, run } = setup();
    expect(
      (
        await run([
          'deploy',
          'support',
          '--repo-url',
          'https://github.com/acme/support',
          '--ref',
          'refs/tags/v1',
          '--config-path',
          'langgraph.json',
          ...fast,
        ])
      ).code,
    ).toBe(0);
    expect(server.requests.find((r) => r.method === 'POST')!.body).toEqual({
      name: 'support',
      source: 'git_host',
      source_config: { repo_url: 'https://github.com/acme/support', build_on_push: false },
      source_revision_config: { repo_ref: 'refs/tags/v1', graph_config_path: 'langgraph.json' },
    });
    expect((await run(['deploy', 'support', '--ref', 'main', ...fast])).code).toBe(0);
    expect((await run(['deploy', 'support', '--config-path', 'graphs/langgraph.json', ...fast])).code).toBe(0);
    expect(server.requests.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([
      { source_revision_config: { repo_ref: 'main' } },
      { source_revision_config: { graph_config_path: 'graphs/langgraph.json' } },
    ]);
  });

  it.each([
    [['--ref', 'main'], /runs a container image .* --repo-url, --ref and --config-path do not apply/, 'container'],
    [['--image', IMAGE], /builds from git .* --image does not apply/, 'git'],
    [['--repo-url', 'https://github.com/acme/other'], /needs --ref or --config-path/, 'git'],
  ])('refuses %j for an existing deployment of the other kind, or without a revision to make (exit 3)', async (flags, message, kind) => {
    const { server, run } = setup();
    await server.seed(
      kind === 'container'
        ? { name: 'app', source: 'external_container', source_revision_config: { image_uri: 'r/a:1' } }
        : {
            name: 'app',
            source: 'git_host',
            source_config: { repo_url: 'u' },
            source_revision_config: { repo_ref: 'main', graph_config_path: 'g.json' },
          },
    );
    const result = await run(['deploy', 'app', ...flags]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(message);
    expect(server.writes()).toEqual([]);
  });

  it('updates instead when another deploy created the name between the lookup and the create', async () => {
    const server = testControlPlane();
    let raced = false;
    server.beforeEach(async (request) => {
      if (request.method === 'POST' && !raced) {
        raced = true; // the other deploy wins the race
        await server.seed({ name: 'billing', source: 'external_container', source_revision_config: { image_uri: 'r/a:1' } });
      }
    });
    const result = await cli(['deploy', 'billing', '--image', 'r/a:2', ...fast, '--json'], {
      env: { AGENTPLANE_BASE_URL: server.baseUrl, AGENTPLANE_API_KEY: server.apiKey, CI: '1' },
      fetch: server.fetch,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('was created meanwhile');
    const billing = (await server.byName('billing'))!;
    expect(server.writes()).toEqual(['POST /v2/deployments', `PATCH /v2/deployments/${billing.id}`]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      created: false,
      deployment: { id: billing.id, source_revision_config: { image_uri: 'r/a:2' } },
    });
  });

  it('a create refused as invalid (422) for another reason stays an error naming the flag (exit 3)', async () => {
    const fetch = async (request: Request) =>
      request.method === 'GET'
        ? json(200, { resources: [], offset: 0 })
        : json(422, { detail: [{ loc: ['body', 'name'], msg: 'String should have at most 63 characters', type: 'string_too_long' }] });
    const result = await cli(['deploy', 'x', '--image', 'r/a:1'], { env: { AGENTPLANE_BASE_URL: BASE, AGENTPLANE_API_KEY: 'k' }, fetch });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('  <name> (body.name): String should have at most 63 characters');
  });

  it('refuses to create from git without all three git flags, naming the missing ones', async () => {
    const { server, run } = setup();
    const result = await run(['deploy', 'new-one', '--ref', 'main']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('(missing: --repo-url, --config-path)');
    expect(server.writes()).toEqual([]);
  });
});

describe('answers of the control plane', () => {
  it('turns a 422 into exit 3 naming the flag, the field and why', async () => {
    const fetch = async (request: Request) =>
      request.method === 'GET'
        ? json(200, { resources: [], offset: 0 })
        : json(422, {
            detail: [
              {
                loc: ['body', 'source_revision_config', 'image_uri'],
                msg: 'String should have at least 1 character',
                type: 'string_too_short',
              },
            ],
          });
    const result = await cli(['deploy', 'x', '--image', 'r/a:1', '--json'], {
      env: { AGENTPLANE_BASE_URL: BASE, AGENTPLANE_API_KEY: 'k' },
      fetch,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('the control plane refused the request as invalid (422):');
    expect(result.stderr).toContain('  --image (body.source_revision_config.image_uri): String should have at least 1 character');
    expect(JSON.parse(result.stdout).error).toMatchObject({ exit_code: 3, http_status: 422 });
  });

  it('exits 1 when the control plane cannot be reached, naming the URL and the cause', async () => {
    const fetch = async () => {
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    };
    const result = await cli(['status', 'x'], { env: { AGENTPLANE_BASE_URL: 'http://127.0.0.1:9', AGENTPLANE_API_KEY: 'k' }, fetch });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: could not reach the control plane at http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9');
    expect(result.stderr).toContain('hint: check --base-url / AGENTPLANE_BASE_URL');
  });

  it('exits 1 with a hint on a 5xx that outlasts the retries', async () => {
    const fetch = async () => json(503, { detail: 'Service Unavailable' });
    const result = await cli(['pool', 'get', 'python-pool'], { env: { AGENTPLANE_BASE_URL: BASE, AGENTPLANE_API_KEY: 'k' }, fetch });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('answered 503: Service Unavailable');
    expect(result.stderr).toContain('try again in a few minutes');
  }, 120_000);

  it.each([
    [['pool', 'get', 'ruby-pool'], 'NotFound: Resource not found.'],
    [['provider', 'get', 'gitlab'], 'OAuth provider gitlab not found.'],
    [['revisions', 'nobody'], 'no deployment named "nobody"'],
    [['delete', '0f0e0d0c-0b0a-4000-8000-00000000ffff'], 'Deployment ID 0f0e0d0c-0b0a-4000-8000-00000000ffff not found.'],
  ])('exits 4 when %j does not exist', async (args, message) => {
    const { run } = setup();
    const result = await run(args);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(message);
  });

  it('shows pools and providers', async () => {
    const { run } = setup();
    const pool = await run(['pool', 'get', 'python-pool']);
    expect(pool.stdout).toMatch(/^python-pool {2}[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(pool.stdout).toMatch(/replicas +2/);
    expect(JSON.parse((await run(['provider', 'get', 'github', '--json'])).stdout).provider.provider_id).toBe('github');
  });
});

describe('progress output', () => {
  it('CI mode: one plain line per status change on stderr, the result on stdout', async () => {
    const { run } = setup();
    const result = await run(['deploy', 'billing', '--image', IMAGE, ...fast]);
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `Creating deployment billing (external_container): image ${IMAGE}`,
      expect.stringMatching(/^Created billing \(\S+\); new revision \S+$/),
      expect.stringMatching(/^Waiting for revision \S+ of billing \(polling every 1ms, timeout 10s\)$/),
    ]);
    expect(lines.slice(3).map((l) => l.trim().split(/\s+/).slice(1).join(' '))).toEqual([
      'QUEUED',
      'AWAITING_DEPLOY (QUEUED took 0s)',
      'DEPLOYING (AWAITING_DEPLOY took 0s)',
      'DEPLOYED (DEPLOYING took 0s)',
    ]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a carriage return or an ANSI escape is what must be absent.
    expect(result.stderr).not.toMatch(/\r|\x1b/);
    expect(result.stdout).toMatch(/^billing: revision \S+ is DEPLOYED and serving \(0s\)\.\n$/);
  });

  it('is plain on a TTY too when CI is set, and live on a TTY without CI', async () => {
    const plain = await setup().run(['deploy', 'a', '--image', IMAGE, ...fast], { isTTY: true });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a carriage return or an ANSI escape is what must be absent.
    expect(plain.stderr).not.toMatch(/\r|\x1b/);
    const live = await setup({ CI: '' }).run(['deploy', 'a', '--image', IMAGE, ...fast], { isTTY: true, columns: 100 });
    expect(live.code).toBe(0);
    expect(live.stderr).toContain('\r\x1b[2K'); // the live line is redrawn in place
    expect(live.stderr).toContain('  ✓ QUEUED ');
    expect(live.stderr).toContain('  ✓ DEPLOYING ');
    expect(live.stderr).toMatch(/ {2}✓ DEPLOYED {9}after \d+s\n$/);
  });

  it('TTY mode: shows the time spent in each status, ticking, with a fake clock', async () => {
    let now = 0;
    const server = testControlPlane();
    // Each poll takes 7 s of fake time.
    server.beforeEach((request) => {
      if (request.url.includes('/revisions/')) now += 7_000;
    });
    const result = await cli(['deploy', 'clocked', '--image', IMAGE, ...fast], {
      env: { AGENTPLANE_BASE_URL: server.baseUrl, AGENTPLANE_API_KEY: server.apiKey },
      fetch: server.fetch,
      isTTY: true,
      now: () => now,
    });
    expect(result.code).toBe(0);
    // What stays on screen: each line as it reads after the last in-place redraw.
    const screen = result.stderr.split('\n').map((l) => l.split('\r\x1b[2K').at(-1)!.trim());
    expect(screen.filter((l) => /^[✓✗]/.test(l))).toEqual(
      ['QUEUED           7s', 'AWAITING_DEPLOY  7s', 'DEPLOYING        7s', 'DEPLOYED         after 28s'].map((l) => `✓ ${l}`),
    );
    expect(result.stdout).toContain('is DEPLOYED and serving (28s)');
  });

  it('TTY mode: the live line never outgrows the terminal', async () => {
    const result = await setup({ CI: '' }).run(['deploy', 'a', '--image', IMAGE, '--interval', '50ms'], { isTTY: true, columns: 20 });
    // Each live line is what was written after a newline and before the next in-place redraw.
    const drawn = result.stderr
      .split('\r\x1b[2K')
      .map((chunk) => chunk.split('\n').at(-1)!)
      .filter((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/.test(l));
    expect(drawn.length).toBeGreaterThan(0);
    for (const line of drawn) expect(line.length).toBeLessThanOrEqual(19);
  });
});

describe('interrupts', () => {
  it('exits 143 on SIGTERM (the bin passes an InterruptedError)', async () => {
    const { run } = setup();
    const controller = new AbortController();
    // A git deployment: its revision is BUILDING for a poll before it deploys.
    const git = ['--repo-url', 'https://github.com/acme/x', '--ref', 'main', '--config-path', 'langgraph.json'];
    const result = await run(['deploy', 'x', ...git, '--interval', '5ms'], {
      signal: controller.signal,
      onStderr: (_, all) => {
        if (all.includes('BUILDING')) controller.abort(new InterruptedError('SIGTERM'));
      },
    });
    expect(result.code).toBe(143);
    expect(result.stderr).toContain('was BUILDING');
  });

  it('an interrupt during the lookup changes nothing (exit 130)', async () => {
    const { server, run } = setup();
    const controller = new AbortController();
    controller.abort(new InterruptedError('SIGINT'));
    const result = await run(['deploy', 'x', '--image', IMAGE], { signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted before anything was changed');
    expect(server.writes()).toEqual([]);
  });

  it('an interrupt during the create lets it finish, then stops before waiting', async () => {
    const server = testControlPlane();
    const controller = new AbortController();
    server.beforeEach((request) => {
      if (request.method === 'POST') controller.abort(new InterruptedError('SIGINT'));
    });
    const result = await cli(['deploy', 'x', '--image', IMAGE, '--json'], {
      env: { AGENTPLANE_BASE_URL: server.baseUrl, AGENTPLANE_API_KEY: server.apiKey, CI: '1' },
      fetch: server.fetch,
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(server.writes()).toEqual(['POST /v2/deployments']);
    expect(result.stderr).toContain('had not answered a poll yet');
    expect(JSON.parse(result.stdout)).toMatchObject({
      created: true,
      deployment: { name: 'x' },
      revision: null,
      error: { exit_code: 130 },
    });
  });
});
