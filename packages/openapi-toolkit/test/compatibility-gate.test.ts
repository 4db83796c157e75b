// The breaking-change gate on deliberate edits of the released specs: each kind of breaking
// edit fails with a message that names the operation, the field and the rule, unless a pending
// note declares it at the right level; additive and prose edits pass, classified minor and patch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { apiPaths } from '../src/apis.js';
import { readBaseline } from '../src/compatibility/baseline.js';
import type { GateMode } from '../src/compatibility/gate.js';
import { assessCompatibility, formatReport } from '../src/compatibility/gate.js';
import type { Impact } from '../src/compatibility/policy.js';

type Spec = any;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-gate-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Judged {
  text: string;
  failed: boolean;
  impact: Impact | 'none';
  rules: string[];
}

/** Applies an edit to a copy of an API's released bundle and runs the gate on the copy. */
async function judge(
  api: 'control-plane' | 'agent-server',
  edit: (spec: Spec) => void,
  { declared = 'none', version, mode = 'change' }: { declared?: Impact | 'none'; version?: string; mode?: GateMode } = {},
): Promise<Judged> {
  const baseline = readBaseline(api);
  if (!baseline) throw new Error(`${api} has no baseline`);
  const spec = YAML.parse(fs.readFileSync(baseline.file, 'utf8')) as Spec;
  edit(spec);
  let baselineFile = baseline.file;
  let baselineVersion = baseline.version;
  if (version) {
    // The same document released as another version, to see the rule for 1.x.
    baselineFile = path.join(dir, `${api}-baseline-${version}.yaml`);
    fs.writeFileSync(baselineFile, fs.readFileSync(baseline.file, 'utf8').replace(/^ {2}version: .*$/m, `  version: ${version}`));
    baselineVersion = version;
    spec.info.version = version;
  }
  const revisionFile = path.join(dir, `${api}-${Math.random().toString(36).slice(2)}.yaml`);
  fs.writeFileSync(revisionFile, YAML.stringify(spec));
  const report = await assessCompatibility({
    api,
    packageName: `@agentplane/${api}`,
    packageVersion: baselineVersion,
    specVersion: spec.info.version,
    baseline: { file: baselineFile, version: baselineVersion },
    revisionFile,
    pending: { bump: declared, notes: declared === 'none' ? [] : ['brave-ducks-sing'] },
    mode,
  });
  return { text: formatReport(report), failed: report.problems.length > 0, impact: report.impact, rules: report.changes.map((c) => c.id) };
}

const BREAKING: Array<[string, 'control-plane' | 'agent-server', (spec: Spec) => void, string, RegExp]> = [
  [
    'a removed response field',
    'control-plane',
    (s) => {
      const deployment = s.components.schemas.Deployment;
      delete deployment.properties.updated_at;
      deployment.required = deployment.required.filter((name: string) => name !== 'updated_at');
    },
    'response-required-property-removed',
    /GET \/v2\/deployments\/\{deployment_id\} \(getDeployment\): removed the required property `updated_at`/,
  ],
  [
    'a narrowed request enum',
    'agent-server',
    (s) => {
      s.components.schemas.ThreadSortBy.enum = s.components.schemas.ThreadSortBy.enum.filter((v: string) => v !== 'status');
    },
    'request-property-enum-value-removed',
    /POST \/threads\/search \(searchThreads\): removed the enum value `status` of the request property `sort_by`/,
  ],
  [
    'a new required request field',
    'agent-server',
    (s) => {
      const search = s.components.schemas.ThreadSearch;
      search.properties.graph_id = { type: 'string' };
      search.required = ['graph_id'];
    },
    'new-required-request-property',
    /POST \/threads\/search \(searchThreads\): added the new required request property `graph_id`/,
  ],
  [
    'a new value of a response enum',
    'control-plane',
    (s) => {
      s.components.schemas.RevisionStatus.enum.push('PAUSED');
    },
    'response-property-enum-value-added',
    /GET \/v2\/deployments\/\{deployment_id\}\/revisions\/\{revision_id\} \(getRevision\): added the new `PAUSED` enum value to the `status` response property/,
  ],
  [
    'a tightened request bound',
    'agent-server',
    (s) => {
      s.components.schemas.ThreadSearch.properties.limit.maximum = 100;
    },
    'request-property-max-decreased',
    /POST \/threads\/search \(searchThreads\): the `limit` request property's max was decreased to `100/,
  ],
  [
    'a changed request default',
    'agent-server',
    (s) => {
      s.components.schemas.ThreadSearch.properties.limit.default = 50;
    },
    'request-property-default-value-changed',
    /POST \/threads\/search \(searchThreads\): .*`limit`.*default/,
  ],
  [
    'a removed request field (request bodies are closed)',
    'control-plane',
    (s) => {
      delete s.components.schemas.DeploymentUpdate.properties.secrets;
    },
    'request-property-removed',
    /PATCH \/v2\/deployments\/\{deployment_id\} \(updateDeployment\): removed the request property `secrets`/,
  ],
];

describe('the breaking-change gate', () => {
  for (const [kind, api, edit, rule, names] of BREAKING) {
    it(`fails on ${kind}, naming the operation, the field and the rule (${rule})`, async () => {
      const judged = await judge(api, edit);
      expect(judged.failed, judged.text).toBe(true);
      expect(judged.impact).toBe('major');
      expect(judged.rules).toContain(rule);
      expect(judged.text).toMatch(names);
      expect(judged.text).toContain(`[${rule}]`);
      expect(judged.text).toMatch(
        /breaking change\(s\) since @agentplane\/[a-z-]+ 0\.1\.0 need a release note at "minor" level or above, and none declares one/,
      );
    });
  }

  it('passes a breaking change that a pending note declares as minor while the package is 0.x', async () => {
    const judged = await judge('agent-server', BREAKING[1]![2], { declared: 'minor' });
    expect(judged.failed, judged.text).toBe(false);
    expect(judged.text).toContain('.changeset/brave-ducks-sing.md');
  });

  it('refuses a breaking change declared only as a patch', async () => {
    const judged = await judge('agent-server', BREAKING[1]![2], { declared: 'patch' });
    expect(judged.failed).toBe(true);
    expect(judged.text).toContain('the pending notes declare only "patch"');
  });

  it('from 1.0, a breaking change needs a major note', async () => {
    const minor = await judge('control-plane', BREAKING[0]![2], { declared: 'minor', version: '1.2.0' });
    expect(minor.failed).toBe(true);
    expect(minor.text).toContain('need a release note at "major" level');
    expect((await judge('control-plane', BREAKING[0]![2], { declared: 'major', version: '1.2.0' })).failed).toBe(false);
  });

  it('passes an additive edit and classifies it minor: a new operation, an optional request field, a response field, a looser bound', async () => {
    const judged = await judge('agent-server', (s) => {
      s.paths['/threads/count'] = { post: { ...structuredClone(s.paths['/threads/search'].post), operationId: 'countThreads' } };
      s.components.schemas.ThreadSearch.properties.select = { type: 'array', items: { type: 'string' }, maxItems: 10 };
      s.components.schemas.Thread.properties.ttl = { type: 'integer', minimum: 0, maximum: 9007199254740991 };
      s.components.schemas.ThreadSearch.properties.limit.maximum = 5000;
    });
    expect(judged.failed, judged.text).toBe(false);
    expect(judged.impact).toBe('minor');
    expect(judged.rules).toEqual(
      expect.arrayContaining(['endpoint-added', 'new-optional-request-property', 'response-optional-property-added']),
    );
    expect(judged.text).not.toContain('✖');
    expect(judged.text).toContain('+ additive  POST /threads/count (countThreads): endpoint added [endpoint-added]');
  });

  it('classifies a new value of a request enum as additive: old clients never send it', async () => {
    const judged = await judge('agent-server', (s) => {
      s.components.schemas.ThreadSortBy.enum.push('name');
    });
    expect(judged.impact).toBe('minor');
    expect(judged.failed).toBe(false);
  });

  it('classifies a description-only edit as a patch', async () => {
    const judged = await judge('control-plane', (s) => {
      s.components.schemas.Deployment.description = 'An agent server deployment, reworded.';
    });
    expect(judged.impact).toBe('patch');
    expect(judged.rules).toEqual([]);
  });

  it('at release, refuses even an additive change that no note declares', async () => {
    const judged = await judge(
      'agent-server',
      (s) => {
        s.components.schemas.ThreadSearch.properties.select = { type: 'array', items: { type: 'string' }, maxItems: 10 };
      },
      { mode: 'release' },
    );
    expect(judged.failed).toBe(true);
    expect(judged.text).toContain('1 change(s) since @agentplane/agent-server 0.1.0 need a release note at "patch" level or above');
  });

  it('refuses a spec whose info.version is not its package version', async () => {
    const judged = await judge('agent-server', (s) => {
      s.info.version = '0.9.0';
    });
    expect(judged.failed).toBe(true);
    expect(judged.text).toContain('info.version of agent-server is 0.9.0, but @agentplane/agent-server is 0.1.0');
  });
});

describe('the baselines', () => {
  for (const api of ['control-plane', 'agent-server']) {
    it(`${api}: released as its package's version, and a hand edit is refused`, () => {
      const baseline = readBaseline(api);
      const manifest = JSON.parse(fs.readFileSync(path.join(apiPaths(api).packageDir, 'package.json'), 'utf8')) as { version: string };
      expect(baseline?.version).toBe(manifest.version);
      const copy = path.join(dir, `${api}-edited.yaml`);
      fs.writeFileSync(copy, fs.readFileSync(apiPaths(api).baselineFile, 'utf8').replace(/^ {2}title: /m, '  title: Edited '));
      expect(() => readBaseline(api, copy)).toThrow(/edited by hand/);
    });
  }
});
