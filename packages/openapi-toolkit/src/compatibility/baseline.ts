// The compatibility baseline: each API's bundle as last released, kept in the repository at
// spec/released/<api>.yaml (decision R1). Only the release step writes it; a checksum in its
// header makes a hand edit fail the gate instead of quietly moving what "compatible" means.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { apiPackage, apiPaths, REPO_ROOT } from '../apis.js';

const CHECKSUM_LINE = /^# sha256 of the document below: ([0-9a-f]{64})$/m;

export interface Baseline {
  file: string;
  /** The released version of the API's package, which is also the document's info.version. */
  version: string;
}

/** The API's baseline, checked against its checksum; undefined before the first release. */
export function readBaseline(api: string, file = apiPaths(api).baselineFile): Baseline | undefined {
  if (!fs.existsSync(file)) return undefined;
  const text = fs.readFileSync(file, 'utf8');
  const checksum = CHECKSUM_LINE.exec(text)?.[1];
  const document = documentPart(text);
  if (!checksum || sha256(document) !== checksum) {
    throw new Error(
      `${path.relative(REPO_ROOT, file)} does not match its checksum: it was edited by hand. ` +
        'It is written by `npm run release` only; restore it with `git checkout -- spec/released`.',
    );
  }
  const version = (YAML.parse(document) as { info?: { version?: string } }).info?.version;
  if (!version) throw new Error(`${path.relative(REPO_ROOT, file)} has no info.version`);
  return { file, version };
}

/** Makes the API's current bundle its baseline: the last step of a release. */
export function writeBaseline(api: string): Baseline {
  const { bundleYaml, baselineFile } = apiPaths(api);
  const document = fs.readFileSync(bundleYaml, 'utf8');
  const pkg = apiPackage(api);
  const version = (YAML.parse(document) as { info: { version: string } }).info.version;
  if (version !== pkg.version) {
    throw new Error(`${api}: the bundle says info.version ${version}, but ${pkg.name} is ${pkg.version}; rebuild after the version step`);
  }
  const header = [
    `# The ${api} API as released in ${pkg.name} ${pkg.version}: the baseline that the`,
    '# breaking-change gate compares the current spec with (docs/decisions.md, R1 and R2).',
    '# Written by `npm run release`; never edit it by hand.',
    `# sha256 of the document below: ${sha256(document)}`,
    '',
  ].join('\n');
  fs.mkdirSync(path.dirname(baselineFile), { recursive: true });
  fs.writeFileSync(baselineFile, header + document);
  return { file: baselineFile, version };
}

function documentPart(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => !line.startsWith('#'));
  return lines.slice(start < 0 ? lines.length : start).join('\n');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
