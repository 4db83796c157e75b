// The breaking-change gate: each API's bundle against its baseline, under the policy of
// policy.ts, and the bump that the pending release notes (or, after the version step, the
// package's new version) declare. On every change (`npm test`) a breaking change must be
// declared; at release every change must be.
import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import YAML from 'yaml';
import { apiPackage, apiPaths } from '../apis.js';
import { diffApiFiles } from './api-diff.js';
import type { Baseline } from './baseline.js';
import { readBaseline } from './baseline.js';
import type { ClassifiedChange, Impact } from './policy.js';
import { atLeast, classifyChange, largest, overallImpact, requiredBump, versionBump } from './policy.js';
import type { DeclaredBump } from './release-notes.js';
import { declaredBump } from './release-notes.js';

export type GateMode = 'change' | 'release';

export interface CompatibilityReport {
  api: string;
  packageName: string;
  packageVersion: string;
  /** The released version compared with; undefined before the first release. */
  baselineVersion: string | undefined;
  changes: ClassifiedChange[];
  impact: Impact | 'none';
  /** The bump a release must make for these changes. */
  required: Impact | 'none';
  /** The bump declared by pending notes or by the version step, whichever is larger. */
  declared: Impact | 'none';
  notes: string[];
  /** Why the gate fails; empty when it passes. */
  problems: string[];
}

export async function checkCompatibility(api: string, mode: GateMode): Promise<CompatibilityReport> {
  const paths = apiPaths(api);
  const pkg = apiPackage(api);
  return assessCompatibility({
    api,
    packageName: pkg.name,
    packageVersion: pkg.version,
    specVersion: (YAML.parse(fs.readFileSync(paths.specRoot, 'utf8')) as { info: { version: string } }).info.version,
    baseline: readBaseline(api),
    revisionFile: paths.bundleYaml,
    pending: await declaredBump(pkg.name),
    mode,
  });
}

export interface GateInput {
  api: string;
  packageName: string;
  packageVersion: string;
  /** info.version of the API's spec, which must be the package's version. */
  specVersion: string;
  baseline: Baseline | undefined;
  /** The bundle to judge. */
  revisionFile: string;
  pending: DeclaredBump;
  mode: GateMode;
}

/** The gate's verdict on one revision of an API, from explicit inputs (what the tests drive). */
export async function assessCompatibility(input: GateInput): Promise<CompatibilityReport> {
  const { api, packageName, packageVersion, baseline, pending, mode } = input;
  const problems: string[] = [];
  if (input.specVersion !== packageVersion) {
    problems.push(
      `info.version of ${api} is ${input.specVersion}, but ${packageName} is ${packageVersion}: the API's version follows its package's, and the version step writes it (npm run release)`,
    );
  }
  const report: CompatibilityReport = {
    api,
    packageName,
    packageVersion,
    baselineVersion: baseline?.version,
    changes: [],
    impact: 'none',
    required: 'none',
    declared: 'none',
    notes: pending.notes,
    problems,
  };
  if (!baseline) return report;

  report.changes = (await diffApiFiles(baseline.file, input.revisionFile)).map(classifyChange);
  report.impact = overallImpact(report.changes, documentsDiffer(baseline.file, input.revisionFile));
  report.required = requiredBump(report.impact, baseline.version);
  report.declared = largest([pending.bump, versionBump(baseline.version, packageVersion)]);
  const mustBeDeclared = mode === 'release' ? report.impact !== 'none' : report.impact === 'major';
  if (mustBeDeclared && !atLeast(report.declared, report.required)) {
    const breaking = report.changes.filter((c) => c.impact === 'major');
    const what =
      breaking.length > 0
        ? `${breaking.length} breaking change(s)`
        : report.changes.length > 0
          ? `${report.changes.length} change(s)`
          : 'description changes';
    problems.push(
      `${what} since ${packageName} ${baseline.version} need a release note at "${report.required}" level or above` +
        (report.declared === 'none' ? ', and none declares one' : `; the pending notes declare only "${report.declared}"`),
    );
  }
  return report;
}

// oasdiff reports no change when only prose (descriptions, examples) differs; the release still
// has to ship it, as a patch.
function documentsDiffer(baselineFile: string, bundleFile: string): boolean {
  const read = (file: string) => {
    const document = YAML.parse(fs.readFileSync(file, 'utf8')) as { info: { version?: string } };
    return { ...document, info: { ...document.info, version: undefined } };
  };
  return !isDeepStrictEqual(read(baselineFile), read(bundleFile));
}

/** The gate's verdict for people: each change with its operation, field and rule. */
export function formatReport(report: CompatibilityReport): string {
  const lines: string[] = [];
  const { api, packageName, baselineVersion } = report;
  if (baselineVersion === undefined) {
    lines.push(`${api}: no baseline yet (${packageName} was never released); nothing to compare with`);
  } else if (report.impact === 'none') {
    lines.push(`${api}: no change since ${packageName} ${baselineVersion}`);
  } else if (report.changes.length === 0) {
    lines.push(
      `${api}: descriptions or examples changed since ${packageName} ${baselineVersion}; impact patch, the release needs a "${report.required}" bump; declared: ${report.declared}` +
        notesOf(report),
    );
  } else {
    const breaking = report.changes.filter((c) => c.impact === 'major').length;
    lines.push(
      `${api}: ${report.changes.length} change(s) since ${packageName} ${baselineVersion}, ${breaking} breaking; ` +
        `impact ${report.impact}, the release needs a "${report.required}" bump; declared: ${report.declared}` +
        notesOf(report),
    );
    for (const change of report.changes) lines.push(`  ${formatChange(change)}`);
  }
  for (const problem of report.problems) lines.push(`✖ ${api}: ${problem}`);
  if (report.problems.length > 0 && report.changes.length > 0) {
    lines.push(
      `  Declare them: \`npx changeset\`, pick ${packageName} and "${report.required}", and tell users what to change;`,
      '  or undo the edit. What counts as breaking, and why: docs/decisions.md, R1.',
    );
  }
  return lines.join('\n');
}

/** The pending notes that declare the bump, as files: ` (.changeset/a.md, ...)`, or nothing. */
const notesOf = (report: CompatibilityReport) =>
  report.notes.length > 0 ? ` (${report.notes.map((n) => `.changeset/${n}.md`).join(', ')})` : '';

export function formatChange(change: ClassifiedChange): string {
  const mark = change.impact === 'major' ? '✖ breaking' : '+ additive';
  const operation = change.operationId ? `${change.operation} (${change.operationId})` : change.operation;
  return `${mark}  ${operation}: ${change.text} [${change.id}]`;
}
