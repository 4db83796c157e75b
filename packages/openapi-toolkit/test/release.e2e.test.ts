// `npm run release` on a copy of the repository: refused without a note for a breaking edit
// (and nothing changed), then, with notes, it versions, writes the changelogs with the API
// changes, builds, passes the gate, packs with checksums, dry-runs the publish and writes the new
// baselines, after which the gate compares with them.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { copyRepository } from './repository-copy.js';

let copy: string;
beforeAll(() => {
  copy = copyRepository();
});
afterAll(() => {
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

const read = (file: string) => fs.readFileSync(path.join(copy, file), 'utf8');
const write = (file: string, text: string) => fs.writeFileSync(path.join(copy, file), text);
const version = (dir: string) => (JSON.parse(read(`${dir}/package.json`)) as { version: string }).version;
const gitStatus = () =>
  execFileSync('git', ['status', '--porcelain'], { cwd: copy, encoding: 'utf8' }).trim().split('\n').filter(Boolean).sort();

function npmRun(...args: string[]) {
  const result = spawnSync('npm', ['run', ...args], {
    cwd: copy,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/** A changesets CHANGELOG's section of one version: from its heading to the next. */
function versionSection(changelog: string, version: string): string {
  const start = changelog.indexOf(`## ${version}\n`);
  const next = changelog.indexOf('\n## ', start + 1);
  return changelog.slice(start, next < 0 ? undefined : next);
}

const THREAD_SEARCH = 'spec/agent-server/components/schemas/ThreadSearch.yaml';

describe('npm run release', () => {
  it('refuses an undeclared breaking change before changing anything', () => {
    const notes = fs.readdirSync(path.join(copy, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    for (const note of notes) fs.renameSync(path.join(copy, '.changeset', note), path.join(copy, `${note}.aside`));
    const original = read(THREAD_SEARCH);
    const search = YAML.parse(original);
    search.properties.limit.maximum = 100;
    write(THREAD_SEARCH, YAML.stringify(search));
    const before = gitStatus();
    try {
      const { status, output } = npmRun('release');
      console.log(output);
      expect(status).toBe(1);
      expect(output).toContain(
        "✖ breaking  POST /threads/search (searchThreads): the `limit` request property's max was decreased to `100.00` [request-property-max-decreased]",
      );
      expect(output).toContain('release: refused before changing anything');
      expect(gitStatus()).toEqual(before);
    } finally {
      write(THREAD_SEARCH, original);
      for (const note of notes) fs.renameSync(path.join(copy, `${note}.aside`), path.join(copy, '.changeset', note));
    }
  });

  it('versions, builds, gates, packs, dry-runs the publish and writes the baselines', () => {
    const before = { core: version('packages/client-core'), agent: version('packages/agent-server'), cli: version('packages/cli') };
    const search = YAML.parse(read(THREAD_SEARCH));
    search.properties.graph_id = { type: 'string', maxLength: 200, description: 'Matches threads of this graph only.' };
    write(THREAD_SEARCH, YAML.stringify(search));
    write(
      '.changeset/search-by-graph.md',
      '---\n"@agentplane/agent-server": minor\n"@agentplane/client-core": patch\n---\n\nThread search takes `graph_id`.\n',
    );

    const { status, output } = npmRun('release', '--', '--out', 'release-out');
    console.log(output);
    expect(status, output).toBe(0);

    // The version step: the notes became versions, and every restated version followed.
    const after = { core: version('packages/client-core'), agent: version('packages/agent-server'), cli: version('packages/cli') };
    expect(after.agent).not.toBe(before.agent);
    expect(after.core).not.toBe(before.core);
    expect(fs.existsSync(path.join(copy, '.changeset/search-by-graph.md'))).toBe(false);
    expect(JSON.parse(read('packages/agent-server/package.json')).dependencies['@agentplane/client-core']).toBe(after.core);
    expect(JSON.parse(read('packages/cli/package.json')).dependencies['@agentplane/control-plane']).toBe(version('packages/control-plane'));
    expect(YAML.parse(read('spec/agent-server/openapi.yaml')).info.version).toBe(after.agent);
    expect(YAML.parse(read('spec/control-plane/openapi.yaml')).info.version).toBe(version('packages/control-plane'));
    expect(read('README.md')).toContain(`@agentplane/cli@${after.cli}`);
    const lock = JSON.parse(read('package-lock.json'));
    expect(lock.packages['packages/agent-server'].version).toBe(after.agent);

    // The changelog lists the changed operation under the new version.
    const changelog = read('packages/agent-server/CHANGELOG.md');
    const section = versionSection(changelog, after.agent);
    expect(section).toContain('Thread search takes `graph_id`.');
    expect(section).toContain('### API changes');
    // Other pending changes of the repository may list more under the same operation.
    expect(section).toContain('- `POST /threads/search` (searchThreads)\n');
    expect(section).toContain('\n  - added the new optional request property `graph_id` (new-optional-request-property)\n');

    // Artifacts: one tarball per public package, checksums that verify, the publish dry run.
    const out = path.join(copy, 'release-out');
    const tarballs = fs.readdirSync(out).filter((f) => f.endsWith('.tgz'));
    expect(tarballs.sort()).toEqual(
      [
        `agentplane-agent-server-${after.agent}.tgz`,
        `agentplane-cli-${after.cli}.tgz`,
        `agentplane-client-core-${after.core}.tgz`,
        `agentplane-conformance-${version('packages/conformance')}.tgz`,
        `agentplane-control-plane-${version('packages/control-plane')}.tgz`,
        `agentplane-emulator-${version('apps/emulator')}.tgz`,
        `agentplane-mock-${version('apps/mock')}.tgz`,
      ].sort(),
    );
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' }).match(/: OK$/gm)).toHaveLength(7);
    const listing = execFileSync('tar', ['-tzf', path.join(out, `agentplane-agent-server-${after.agent}.tgz`)], { encoding: 'utf8' });
    for (const file of [
      'package/LICENSE',
      'package/README.md',
      'package/CHANGELOG.md',
      'package/openapi/openapi.yaml',
      'package/dist/index.js',
    ])
      expect(listing).toContain(file);
    // The emulator's tarball holds what runs (bin, dist with its generated validators), no sources or tests.
    const emulatorFiles = execFileSync('tar', ['-tzf', path.join(out, `agentplane-emulator-${version('apps/emulator')}.tgz`)], {
      encoding: 'utf8',
    });
    for (const file of ['package/bin/agentplane-emulator.js', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/LICENSE'])
      expect(emulatorFiles).toContain(file);
    expect(emulatorFiles).toMatch(/^package\/dist\/generated\/agent-server\/body\.cjs$/m);
    expect(emulatorFiles).not.toMatch(/^package\/(src|test)\//m);
    expect(execFileSync('tar', ['-tzf', path.join(out, `agentplane-mock-${version('apps/mock')}.tgz`)], { encoding: 'utf8' })).toContain(
      'package/dist/query-booleans.json',
    );
    expect(output.match(/^\+ @agentplane\/[a-z-]+@\S+$/gm)).toHaveLength(7);
    // All seven got a version (client-core's patch bumps its dependents, and theirs), so all seven are to upload.
    for (const tarball of tarballs) expect(output).toContain(`  npm publish release-out/${tarball}`);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'))).toHaveLength(7);

    // The new baseline is the released spec, and the gate now compares with it.
    expect(read('spec/released/agent-server.yaml')).toContain(
      `# The agent-server API as released in @agentplane/agent-server ${after.agent}`,
    );
    expect(YAML.parse(read('spec/released/agent-server.yaml')).components.schemas.ThreadSearch.properties.graph_id).toBeDefined();
    const gate = spawnSync('npx', ['--no-install', 'agentplane-spec', 'compat', 'agent-server'], { cwd: copy, encoding: 'utf8' });
    expect(gate.stdout).toContain(`agent-server: no change since @agentplane/agent-server ${after.agent}`);
    expect(gate.status).toBe(0);
  });
});
