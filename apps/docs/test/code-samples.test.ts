// The code samples of the Redoc reference are generated from the bundled specs' own examples:
// every operation gets curl and TypeScript, the operations a CLI command performs get the CLI,
// each sample makes the request its examples give, and the published bundles are never touched.
import { listOperations, loadBundle, resolveRef } from '@agentplane/openapi-toolkit';
import { describe, expect, it } from 'vitest';
import type { OperationSamples } from '../src/code-samples.js';
import { generateCodeSamples, SAMPLE_KINDS, shellQuote, tsLiteral, withCodeSamples } from '../src/code-samples.js';
import { shellWords } from '../src/sample-checks.js';
import { PAGES } from '../src/site.js';

/** The operations an `agentplane` command performs (packages/cli/src/request-commands.ts). */
const CLI_OPERATIONS = [
  'createDeployment',
  'getDeployment',
  'updateDeployment',
  'deleteDeployment',
  'listRevisions',
  'createRevision',
  'getRevision',
  'redeployRevision',
  'listRevisionLogs',
  'getOauthProvider',
  'getSandboxPool',
];

const apis = PAGES.map(({ name }) => {
  const spec = loadBundle(name);
  return { api: name, spec, operations: generateCodeSamples(name, spec) };
});
const controlPlane = apis.find((a) => a.api === 'control-plane')!;

function sample(operations: OperationSamples[], operationId: string, label: string): string {
  const found = operations.find((o) => o.operationId === operationId)?.samples.find((s) => s.label === label);
  if (!found) throw new Error(`no ${label} sample for ${operationId}`);
  return found.source;
}

/** The JSON a curl sample sends with -d, as the shell passes it. */
function curlBody(source: string): unknown {
  const quoted = /-d ('(?:[^']|'\\'')*')$/.exec(source)?.[1];
  return quoted === undefined ? undefined : JSON.parse(shellWords(quoted)[0]!);
}

describe('generateCodeSamples', () => {
  it('gives every operation of both bundled specs curl and TypeScript, and the CLI exactly where a command performs it', () => {
    expect(apis.map((a) => a.api).sort()).toEqual(['agent-server', 'control-plane']);
    for (const { api, spec, operations } of apis) {
      expect(operations.map((o) => o.operationId)).toEqual(listOperations(spec).map((o) => o.operationId));
      for (const { operationId, samples, argv } of operations) {
        const cli = api === 'control-plane' && CLI_OPERATIONS.includes(operationId);
        const labels = [SAMPLE_KINDS.curl.label, SAMPLE_KINDS.typescript.label, ...(cli ? [SAMPLE_KINDS.cli.label] : [])];
        expect(
          samples.map((s) => s.label),
          `${api} ${operationId}`,
        ).toEqual(labels);
        expect(argv !== undefined, `${api} ${operationId}`).toBe(cli);
      }
    }
  });

  it("sends the operation's first named request example as the curl body, and as the TypeScript body", () => {
    let bodies = 0;
    for (const { api, spec, operations } of apis) {
      for (const { operationId, operation } of listOperations(spec)) {
        if (!operation.requestBody) continue;
        const examples = Object.values<any>(resolveRef(spec, operation.requestBody).content['application/json'].examples);
        const example = resolveRef(spec, examples[0]).value;
        expect(curlBody(sample(operations, operationId, 'curl')), `${api} ${operationId}`).toEqual(example);
        expect(sample(operations, operationId, 'TypeScript'), `${api} ${operationId}`).toContain(`body: ${tsLiteral(example, 2, 8)}`);
        bodies++;
      }
    }
    expect(bodies).toBeGreaterThan(5);
  });

  it("fills the path from the parameters' examples, and the query with the examples that are not the default", () => {
    const revisions = sample(controlPlane.operations, 'listRevisions', 'curl');
    expect(revisions).toMatch(/^curl -X GET "\$AGENTPLANE_BASE_URL\/v2\/deployments\/[0-9a-f-]{36}\/revisions\?status=DEPLOYED" \\$/m);
    expect(sample(controlPlane.operations, 'listRevisions', 'TypeScript')).toContain("query: { status: 'DEPLOYED' }");
    const listing = controlPlane.operations.find((o) => o.operationId === 'listDeployments')!;
    // limit 20 and offset 0 are the defaults: they say nothing, so they are left out.
    expect(listing.request.query).toEqual({
      name_contains: 'billing',
      status: 'DEPLOY_FAILED',
      deployment_ids: '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50,9d4c2b1a-7e6f-4a5b-8c3d-2e1f0a9b8c71',
    });
    // A required parameter is always sent (a log's type), even at its example.
    const logs = controlPlane.operations.find((o) => o.operationId === 'listRevisionLogs')!;
    expect(logs.request.query).toMatchObject({ type: 'build' });
  });

  it('sends the API key the operation takes; the agent server one may be unset, and none where no credential is taken', () => {
    const agentServer = apis.find((a) => a.api === 'agent-server')!;
    for (const { operationId } of controlPlane.operations) {
      expect(sample(controlPlane.operations, operationId, 'curl')).toContain('-H "X-Api-Key: $AGENTPLANE_API_KEY"');
      expect(sample(controlPlane.operations, operationId, 'TypeScript')).toContain("apiKey: process.env.AGENTPLANE_API_KEY ?? '',");
    }
    const withoutCredentials = listOperations(agentServer.spec)
      .filter(({ operation }) => Array.isArray(operation.security) && operation.security.length === 0)
      .map(({ operationId }) => operationId);
    expect(withoutCredentials).toEqual(['getHealth', 'getServerInfo']);
    for (const { operationId } of agentServer.operations) {
      const [curl, typescript] = [
        sample(agentServer.operations, operationId, 'curl'),
        sample(agentServer.operations, operationId, 'TypeScript'),
      ];
      if (withoutCredentials.includes(operationId)) {
        expect(curl).not.toContain('X-Api-Key');
        expect(typescript).not.toContain('apiKey');
        continue;
      }
      expect(curl).toContain('-H "X-Api-Key: $AGENTPLANE_AGENT_SERVER_API_KEY"');
      expect(typescript).toContain('apiKey: process.env.AGENTPLANE_AGENT_SERVER_API_KEY,\n');
    }
  });

  it("deploys by the name of the deployment in the update's answer, and says what the CLI leaves out", () => {
    const update = listOperations(controlPlane.spec).find((o) => o.operationId === 'updateDeployment')!;
    const answer = resolveRef(
      controlPlane.spec,
      Object.values<any>(update.operation.responses['200'].content['application/json'].examples)[0],
    );
    expect(controlPlane.operations.find((o) => o.operationId === 'updateDeployment')!.argv!.slice(0, 2)).toEqual([
      'deploy',
      answer.value.name,
    ]);
    const create = sample(controlPlane.operations, 'createDeployment', 'agentplane CLI');
    const notes = create.replace(/\n# /g, ' ');
    expect(notes).toContain('Reads AGENTPLANE_BASE_URL, AGENTPLANE_API_KEY and OPENAI_API_KEY from the environment.');
    expect(notes).toContain('The CLI has no flag for body.source_config.integration_id,');
    expect(create).toContain('--secret OPENAI_API_KEY');
    // A secret's value is read from the environment, never written into the command line.
    const { body } = controlPlane.operations.find((o) => o.operationId === 'createDeployment')!.request as { body: { secrets: any[] } };
    for (const secret of body.secrets) expect(create).not.toContain(secret.value);
  });

  it('fails naming the operation and the parameter when an example a sample needs is missing', () => {
    const spec = structuredClone(controlPlane.spec);
    delete spec.components.parameters.DeploymentId.example;
    expect(() => generateCodeSamples('control-plane', spec)).toThrow(
      /^control-plane \w+: the required path parameter deployment_id has no example for the code samples$/,
    );
  });
});

describe('withCodeSamples', () => {
  it('puts the samples into a copy of the bundle as x-codeSamples, and leaves the bundle as it was', () => {
    const before = JSON.stringify(controlPlane.spec);
    const copy = withCodeSamples(controlPlane.spec, controlPlane.operations);
    expect(JSON.stringify(controlPlane.spec)).toBe(before);
    for (const { operationId, operation } of listOperations(copy)) {
      expect(operation['x-codeSamples'], operationId).toEqual(controlPlane.operations.find((o) => o.operationId === operationId)!.samples);
    }
  });
});

describe('shellQuote', () => {
  it.each(['main', 'https://github.com/acme/support-agent', "it's", 'two words', '$HOME', '{"a": 1}', ''])(
    '%j reads back as itself',
    (word) => {
      expect(shellWords(`agentplane ${shellQuote(word)}`)).toEqual(['agentplane', word]);
    },
  );
});
