// The version step of a release: the pending notes become versions and changelogs
// (`changeset version`), and every place that restates a version follows:
// - each API's info.version (the spec root's) is its client package's version;
// - the READMEs' pinned install lines (`@agentplane/cli@0.1.0`) name the new versions;
// - package-lock.json records the new workspace versions, so `npm ci` keeps working;
// - each API package's CHANGELOG.md lists, under the new version, every operation that changed
//   since the baseline (the gate's findings, compatibility/changelog.ts).
import fs from 'node:fs';
import path from 'node:path';
import { API_NAMES, apiPackage, apiPaths, REPO_ROOT } from '../apis.js';
import type { ApiChangeSummary } from '../compatibility/changelog.js';
import { addApiChangesToChangelog, renderApiChanges } from '../compatibility/changelog.js';
import { npmCommand, publicPackages, rootTool, runCommand } from './workspace.js';

/** Runs the version step; `changes` are each API's changes since its baseline, taken before it. */
export async function versionStep(changes: ReadonlyMap<string, ApiChangeSummary>, root = REPO_ROOT): Promise<void> {
  const before = new Map(publicPackages(root).map((p) => [p.name, p.version]));
  await runCommand(process.execPath, [rootTool('@changesets/cli/bin.js', root), 'version'], root);
  for (const api of API_NAMES) {
    const { version, name } = apiPackage(api);
    setSpecVersion(apiPaths(api).specRoot, version);
    const summary = changes.get(api);
    if (summary && before.get(name) !== version) {
      const changelog = path.join(apiPaths(api).packageDir, 'CHANGELOG.md');
      fs.writeFileSync(changelog, addApiChangesToChangelog(fs.readFileSync(changelog, 'utf8'), version, renderApiChanges(summary)));
    }
  }
  const versions = new Map(publicPackages(root).map((p) => [p.name, p.version]));
  for (const readme of [path.join(root, 'README.md'), ...publicPackages(root).map((p) => path.join(p.dir, 'README.md'))]) {
    if (fs.existsSync(readme)) fs.writeFileSync(readme, pinVersions(fs.readFileSync(readme, 'utf8'), versions));
  }
  await runCommand(npmCommand, ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], root);
}

/** Sets `info.version` of a spec root, leaving every other byte of the file as written. */
export function setSpecVersion(specRoot: string, version: string): void {
  const text = fs.readFileSync(specRoot, 'utf8');
  // The `version:` line among the two-space indented lines under `info:`.
  const versionLine = /^(info:\n(?:[ ]{2}.*\n)*?[ ]{2}version: ).*$/m;
  if (!versionLine.test(text)) throw new Error(`${specRoot}: no info.version line to update`);
  fs.writeFileSync(specRoot, text.replace(versionLine, `$1${version}`));
}

/** Rewrites `@agentplane/<name>@x.y.z` pins in a document to the packages' current versions. */
export function pinVersions(text: string, versions: ReadonlyMap<string, string>): string {
  return text.replace(/(@agentplane\/[a-z-]+)@\d+\.\d+\.\d+/g, (pin, name: string) => {
    const version = versions.get(name);
    return version ? `${name}@${version}` : pin;
  });
}
