// Rules of the repository's shape that no compiler checks: every workspace package imports the
// others by name (never by a relative path into another package), and nothing points outside the
// repository for a decision or a fact (the decision record is docs/decisions.md).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/apis.js';
import { publicPackages } from '../src/release/workspace.js';

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const sources = tracked.filter((file) => /\.(ts|js|mjs)$/.test(file) && !file.includes('/generated/'));

/** The folder of the nearest package.json above a file: the package it belongs to. */
function packageOf(file: string): string {
  for (let dir = path.dirname(path.join(REPO_ROOT, file)); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
}

describe('repository', () => {
  it('installs from its lockfile: npm ci accepts package.json and package-lock.json as they are', () => {
    // A dependency whose platform binaries the registry lacks leaves them out of the lockfile, and
    // npm ci then refuses the install on a fresh machine (it happened with a Biome release).
    expect(() =>
      execFileSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: REPO_ROOT, stdio: 'pipe' }),
    ).not.toThrow();
  });

  it('imports other workspace packages by name, never by a relative path across a package boundary', () => {
    // The reference servers are no workspace package (they have their own lockfile and install,
    // decision T6), so they have no name to import by; nor is the root, whose unit-test settings
    // every package's vitest config spreads. Those are the two exceptions.
    const referenceServers = path.join(REPO_ROOT, 'reference-servers') + path.sep;
    const sharedTestSettings = path.join(REPO_ROOT, 'vitest.shared.js');
    const crossings: string[] = [];
    for (const file of sources) {
      const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
      const home = packageOf(file);
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = path.resolve(path.dirname(path.join(REPO_ROOT, file)), specifier!);
        if (!target.startsWith(`${home}${path.sep}`) && !target.startsWith(referenceServers) && target !== sharedTestSettings)
          crossings.push(`${file}: ${specifier}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it('points nowhere outside itself for a decision: no design brief, no issue numbers', () => {
    const outside: string[] = [];
    for (const file of tracked.filter((f) => /\.(ts|js|mjs|md|yaml|yml|json)$/.test(f) && f !== 'package-lock.json')) {
      const lines = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/DESIGN\.md|\bissue #?\d+\b/i.test(line)) outside.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(outside).toEqual([]);
  });

  it('cites only decisions the decision record has', () => {
    const record = fs.readFileSync(path.join(REPO_ROOT, 'docs/decisions.md'), 'utf8');
    const entries = new Set([...record.matchAll(/^### ([A-Z]\d+)\./gm)].map((m) => m[1]));
    const unknown: string[] = [];
    for (const file of tracked.filter((f) => /\.(ts|js|md|yaml)$/.test(f))) {
      const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
      for (const [, first, last] of text.matchAll(/\bdecisions? ([A-Z]\d+)(?:(?: to |–)([A-Z]\d+))?/g)) {
        for (const entry of [first, last]) if (entry && !entries.has(entry)) unknown.push(`${file}: decision ${entry}`);
      }
    }
    expect(entries.size).toBeGreaterThan(40);
    expect(unknown).toEqual([]);
  });

  it('publishes every public package with its licence, where it comes from, and public access (decision R4)', () => {
    const licence = fs.readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8');
    const published = publicPackages();
    expect(published.map((p) => p.name).sort()).toEqual([
      '@agentplane/agent-server',
      '@agentplane/cli',
      '@agentplane/client-core',
      '@agentplane/conformance',
      '@agentplane/control-plane',
      '@agentplane/emulator',
      '@agentplane/mock',
    ]);
    for (const pkg of published) {
      const manifest = JSON.parse(fs.readFileSync(path.join(pkg.dir, 'package.json'), 'utf8'));
      const where = path.relative(REPO_ROOT, pkg.dir);
      expect(fs.readFileSync(path.join(pkg.dir, 'LICENSE'), 'utf8'), `${where}/LICENSE`).toBe(licence);
      expect(manifest.license, where).toBe('Apache-2.0');
      expect(manifest.repository, where).toEqual({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/.+\.git$/), directory: where });
      expect(manifest.homepage, where).toMatch(new RegExp(`/tree/main/${where}#readme$`));
      expect(manifest.bugs?.url, where).toMatch(/\/issues$/);
      expect(manifest.publishConfig, where).toEqual({ access: 'public' });
      expect(manifest.files, where).toContain('CHANGELOG.md');
    }
  });

  it('pins every published package in the READMEs at its current version (the version step rewrites them)', () => {
    const versions = new Map(publicPackages().map((p) => [p.name, p.version]));
    const stale: string[] = [];
    for (const file of tracked.filter((f) => f.endsWith('README.md'))) {
      const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
      for (const [pin, name, version] of text.matchAll(/(@agentplane\/[a-z-]+)@(\d+\.\d+\.\d+)/g)) {
        if (versions.has(name!) && versions.get(name!) !== version) stale.push(`${file}: ${pin} (now ${versions.get(name!)})`);
      }
    }
    expect(stale).toEqual([]);
  });
});
