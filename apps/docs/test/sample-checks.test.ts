// The build's checks of the code samples can fail: a TypeScript sample made from a broken example
// (an unknown body field, a path the API does not have) does not type-check against the built
// clients, and a CLI sample with an unknown flag, a missing argument or text that is not its
// command line is refused by the CLI's parser. The real samples pass both.
import fs from 'node:fs';
import path from 'node:path';
import { loadBundle, resolveRef } from '@agentplane/openapi-toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import type { OperationSamples } from '../src/code-samples.js';
import { generateCodeSamples, SAMPLE_KINDS } from '../src/code-samples.js';
import { checkCliSamples, checkCodeSamples, shellWords, typecheckSamples } from '../src/sample-checks.js';
import { GENERATED_DIR, PAGES } from '../src/site.js';

const apis = PAGES.map(({ name }) => ({ api: name, operations: generateCodeSamples(name, loadBundle(name)) }));
const controlPlane = loadBundle('control-plane');
const dir = path.join(GENERATED_DIR, 'test-sample-checks');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** createDeployment's samples, generated from a copy of the spec that `breakSpec` changed. */
function brokenCreate(breakSpec: (spec: any, operation: any) => void): OperationSamples {
  const spec = structuredClone(controlPlane);
  breakSpec(spec, spec.paths['/v2/deployments'].post);
  return generateCodeSamples('control-plane', spec).find((o) => o.operationId === 'createDeployment')!;
}

/** A copy of an operation's samples whose CLI sample runs these arguments instead. */
function withCli(operations: OperationSamples, argv: string[], source = `agentplane ${argv.join(' ')}`): OperationSamples {
  const samples = operations.samples.map((s) => (s.label === SAMPLE_KINDS.cli.label ? { ...s, source } : s));
  return { ...operations, samples, argv };
}

describe('typecheckSamples', () => {
  it('passes every real sample, and fails each sample made from a broken example, naming its file', async () => {
    const unknownField = brokenCreate((spec, operation) => {
      const first = Object.values<any>(operation.requestBody.content['application/json'].examples)[0];
      resolveRef(spec, first).value.source_revision_config.image_url = 'registry.acme.internal/agents/typo:1';
    });
    const wrongPath = brokenCreate((spec) => {
      spec.paths['/v2/deployment'] = spec.paths['/v2/deployments'];
      delete spec.paths['/v2/deployments'];
    });
    const diagnostics = await typecheckSamples(
      [...apis, { api: 'broken-body', operations: [unknownField] }, { api: 'broken-path', operations: [wrongPath] }],
      dir,
    );
    const files = new Set(diagnostics.map((line) => /^([\w/-]+\.ts)\(/.exec(line)?.[1]));
    expect([...files].sort(), diagnostics.join('\n')).toEqual(['broken-body/createDeployment.ts', 'broken-path/createDeployment.ts']);
    expect(diagnostics.join('\n')).toMatch(/broken-body\/createDeployment\.ts.*'image_url'/);
    expect(diagnostics.join('\n')).toMatch(/broken-path\/createDeployment\.ts.*'"\/v2\/deployment"'/);
  }, 240_000);
});

describe('checkCliSamples', () => {
  const create = apis.find((a) => a.api === 'control-plane')!.operations.find((o) => o.operationId === 'createDeployment')!;

  it('passes every real CLI sample', () => {
    expect(checkCliSamples(apis)).toEqual([]);
  });

  it.each<[string, OperationSamples, RegExp]>([
    ['an unknown flag', withCli(create, ['deploy', 'billing-agent', '--imgae', 'r/a:1']), /unknown flag --imgae/],
    ['a flag of another command', withCli(create, ['status', 'billing-agent', '--image', 'r/a:1']), /--image does not apply/],
    ['a missing argument', withCli(create, ['status']), /`agentplane status` needs <deployment>/],
    ['an extra argument', withCli(create, ['pool', 'get', 'a', 'b']), /too many arguments/],
    ['text that is not its command line', withCli(create, ['status', 'a'], 'agentplane status b'), /it shows .* not the command line/],
    ['shell syntax the sample has no use for', withCli(create, ['status', 'a'], 'agentplane status "$ID"'), /would read "\\"" specially/],
  ])('refuses %s, naming the operation', (_, operation, problem) => {
    const [found] = checkCliSamples([{ api: 'control-plane', operations: [operation] }]);
    expect(found).toMatch(/^control-plane createDeployment \(agentplane CLI\): /);
    expect(found).toMatch(problem);
  });

  it('makes checkCodeSamples fail the build with every problem listed', async () => {
    const broken = [{ api: 'control-plane', operations: [withCli(create, ['deploy', 'x', '--imgae', 'r/a:1'])] }];
    await expect(checkCodeSamples(broken, path.join(dir, 'build'))).rejects.toThrow(
      /^code samples that would not work as shown:\n {2}control-plane createDeployment \(agentplane CLI\): unknown flag --imgae/,
    );
  }, 240_000);
});

describe('shellWords', () => {
  it('reads comments, continuations and quoting as the shell does', () => {
    expect(shellWords("# a comment\nagentplane deploy a \\\n  --secret 'it'\\''s' \\\n  --ref main")).toEqual([
      'agentplane',
      'deploy',
      'a',
      '--secret',
      "it's",
      '--ref',
      'main',
    ]);
  });
});
