// `npm run release`: everything a release does except the upload (decision R4).
//   1. preflight  the specs bundled (not built: seconds, not minutes), and every API change since
//                 its baseline declared by a pending note (the gate in release mode), so a refused
//                 release changes nothing
//   2. version    notes become versions, changelogs (with each API's changed operations),
//                 spec versions, README pins and lockfile (version-step.ts)
//   3. build      the public packages and what they depend on, at their new versions
//   4. gate       the new bundles against the baselines: every change declared by the version bump
//   5. pack       every public package into one folder, with SHA256SUMS and manifest.json
//   6. dry run    `npm publish --dry-run` of each tarball
//   7. baseline   the new bundles become the baselines the next change is compared with
// What is left to a person: review and commit the changes, then `npm publish <tarball>` each.
import path from 'node:path';
import { API_NAMES, apiPackage, REPO_ROOT } from '../apis.js';
import { bundleApi } from '../build-spec.js';
import { writeBaseline } from '../compatibility/baseline.js';
import type { ApiChangeSummary } from '../compatibility/changelog.js';
import { checkCompatibility, formatReport } from '../compatibility/gate.js';
import { declaredBump } from '../compatibility/release-notes.js';
import { packPackages, publishDryRun } from './artifacts.js';
import { versionStep } from './version-step.js';
import { publicPackages, rootTool, runCommand } from './workspace.js';

export interface ReleaseOptions {
  /** Where the tarballs and checksums go (default: release/ in the repository root). */
  outDir?: string | undefined;
  root?: string;
}

export async function release({ outDir, root = REPO_ROOT }: ReleaseOptions = {}): Promise<number> {
  const out = path.resolve(root, outDir ?? 'release');
  const step = (title: string) => console.log(`\n== release: ${title}`);

  step('preflight (bundle the specs, every change since the baselines declared)');
  // The gate judges the bundles alone: the packages are built once, at their new versions.
  for (const api of API_NAMES) await bundleApi(api);
  const summaries = new Map<string, ApiChangeSummary>();
  let refused = false;
  for (const api of API_NAMES) {
    const report = await checkCompatibility(api, 'release');
    console.log(formatReport(report));
    refused ||= report.problems.length > 0;
    summaries.set(api, { since: report.baselineVersion ?? 'the first release', impact: report.impact, changes: report.changes });
  }
  if (refused) {
    console.error('release: refused before changing anything; declare the changes above with `npx changeset`');
    return 1;
  }
  const pending = await Promise.all(publicPackages(root).map((p) => declaredBump(p.name, root)));
  if (pending.every((p) => p.bump === 'none')) {
    console.log('release: no pending release notes (.changeset/*.md), so there is nothing to release');
    return 0;
  }

  step('version (changeset version, spec versions, README pins, lockfile, API changes in the changelogs)');
  const previous = new Map(publicPackages(root).map((p) => [p.name, p.version]));
  await versionStep(summaries, root);
  const bumped = new Set<string>();
  for (const p of publicPackages(root)) {
    if (previous.get(p.name) !== p.version) bumped.add(p.name);
    console.log(`  ${p.name} ${previous.get(p.name)} -> ${p.version}${bumped.has(p.name) ? '' : ' (unchanged)'}`);
  }

  step('build');
  await buildPublicPackages(root);

  step('gate (the new bundles against the baselines, declared by the new versions)');
  for (const api of API_NAMES) {
    const report = await checkCompatibility(api, 'release');
    console.log(formatReport(report));
    if (report.problems.length > 0) return 1;
  }

  step(`pack into ${path.relative(root, out) || '.'}`);
  const packed = await packPackages(publicPackages(root), bumped, out, root);
  for (const p of packed) {
    console.log(
      `  ${path.basename(p.file)}  ${p.size} bytes, ${p.entryCount} files  sha256 ${p.sha256}${p.isNew ? '' : '  (already released)'}`,
    );
  }

  step('npm publish --dry-run');
  await publishDryRun(packed, root);

  step('baselines');
  for (const api of API_NAMES) {
    const baseline = writeBaseline(api);
    console.log(`  ${path.relative(root, baseline.file)}: ${apiPackage(api).name} ${baseline.version}`);
  }
  const upload = packed.filter((p) => p.isNew).map((p) => path.relative(root, p.file));
  console.log(
    `\nrelease: ready. Review and commit the version changes and the new baselines, then upload the new versions (checksums in SHA256SUMS):\n${upload.map((file) => `  npm publish ${file}`).join('\n')}`,
  );
  return 0;
}

// Only the published packages and what they need: the docs, bench and toolkit are not released.
async function buildPublicPackages(root: string): Promise<void> {
  const filters = publicPackages(root).flatMap((p) => ['--filter', `${p.name}...`]);
  await runCommand(process.execPath, [rootTool('turbo/bin/turbo', root), 'run', 'build', '--output-logs=errors-only', ...filters], root);
}
