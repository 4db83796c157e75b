// The release's artifacts: `npm pack` of every public package into one folder, with the
// checksums a person or a pipeline verifies before uploading (`sha256sum -c SHA256SUMS`), and
// `npm publish --dry-run` of each tarball, which runs npm's own checks without uploading.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../apis.js';
import type { WorkspacePackage } from './workspace.js';
import { captureCommand, npmCommand, runCommand } from './workspace.js';

export interface PackedPackage {
  name: string;
  version: string;
  file: string;
  sha256: string;
  /** npm's own integrity string (sha512), as the registry will record it. */
  integrity: string;
  size: number;
  entryCount: number;
  /** Whether this release gave the package its version; the others are packed as they were released. */
  isNew: boolean;
}

interface NpmPackResult {
  name: string;
  version: string;
  filename: string;
  integrity: string;
  size: number;
  entryCount: number;
}

export async function packPackages(
  packages: readonly WorkspacePackage[],
  newVersions: ReadonlySet<string>,
  outDir: string,
  root = REPO_ROOT,
): Promise<PackedPackage[]> {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const packed: PackedPackage[] = [];
  for (const pkg of packages) {
    const [result] = JSON.parse(
      await captureCommand(npmCommand, ['pack', '--workspace', pkg.name, '--pack-destination', outDir, '--json', '--ignore-scripts'], root),
    ) as NpmPackResult[];
    if (!result) throw new Error(`npm pack ${pkg.name} reported nothing`);
    const file = path.join(outDir, result.filename);
    packed.push({
      name: result.name,
      version: result.version,
      file,
      sha256: createHash('sha256').update(fs.readFileSync(file)).digest('hex'),
      integrity: result.integrity,
      size: result.size,
      entryCount: result.entryCount,
      isNew: newVersions.has(pkg.name),
    });
  }
  fs.writeFileSync(path.join(outDir, 'SHA256SUMS'), packed.map((p) => `${p.sha256}  ${path.basename(p.file)}\n`).join(''));
  fs.writeFileSync(
    path.join(outDir, 'manifest.json'),
    `${JSON.stringify(
      packed.map(({ file, ...rest }) => ({ ...rest, file: path.basename(file) })),
      null,
      2,
    )}\n`,
  );
  return packed;
}

export async function publishDryRun(packed: readonly PackedPackage[], root = REPO_ROOT): Promise<void> {
  for (const p of packed) await runCommand(npmCommand, ['publish', '--dry-run', '--ignore-scripts', p.file], root);
}
