// The README is the CLI reference: it must name every command, flag, environment variable and
// exit code the CLI has, its GitHub Actions workflow must be valid YAML that deploys on push to
// main, and its TypeScript example must compile against the built package.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeExamples, typecheckReadmeExamples } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { COMMANDS, commandName } from '../src/commands.js';
import { EXIT } from '../src/errors.js';
import { FLAGS } from '../src/options.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = fs.readFileSync(path.join(packageDir, 'README.md'), 'utf8');

describe('README', () => {
  it('documents every command, flag, environment variable and exit code', () => {
    for (const spec of COMMANDS) expect(readme, commandName(spec)).toContain(`agentplane ${[commandName(spec), ...spec.args].join(' ')}`);
    for (const [name, spec] of Object.entries(FLAGS)) {
      expect(readme, name).toContain(`--${name}`);
      if ('env' in spec) expect(readme, spec.env).toContain(`\`${spec.env}\``);
    }
    for (const code of Object.values(EXIT)) expect(readme, `exit ${code}`).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
    expect(readme).toContain('## GitHub Actions');
  });

  it('has a GitHub Actions workflow that deploys on push to main with the CLI', () => {
    const workflows = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => YAML.parse(m[1]!));
    expect(workflows).toHaveLength(1);
    const workflow = workflows[0];
    expect(workflow.on.push.branches).toEqual(['main']);
    const steps = Object.values<any>(workflow.jobs).flatMap((job) => job.steps);
    const deploy = steps.find((step) => /agentplane\/cli@[\d.]+ deploy /.test(step.run ?? ''));
    expect(deploy, 'a step runs agentplane deploy').toBeDefined();
    expect(deploy.env).toMatchObject({ AGENTPLANE_BASE_URL: expect.any(String), AGENTPLANE_API_KEY: expect.stringContaining('secrets.') });
    // The step fails the job on a failed revision because the CLI exits non-zero: nothing may swallow it.
    expect(deploy['continue-on-error']).toBeUndefined();
    expect(deploy.run).not.toMatch(/\|\|\s*true/);
  });

  it('TypeScript examples type-check against the built package', () => {
    expect(readmeExamples(packageDir).length).toBeGreaterThanOrEqual(1);
    expect(typecheckReadmeExamples(packageDir)).toEqual([]);
  }, 180_000);
});
