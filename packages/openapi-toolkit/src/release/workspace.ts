// The repository's workspace packages as the release sees them: which ones are published, and
// the commands (turbo, changesets, npm) it runs from the repository root.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from '../apis.js';

export interface WorkspacePackage {
  name: string;
  version: string;
  dir: string;
  private: boolean;
}

/** Every workspace package (the root package.json's `workspaces`, `dir/*` patterns). */
export function workspacePackages(root = REPO_ROOT): WorkspacePackage[] {
  const { workspaces = [] } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) throw new Error(`workspace pattern "${pattern}" is not of the form dir/*`);
    const parent = path.join(root, pattern.slice(0, -2));
    return fs
      .readdirSync(parent)
      .map((entry) => path.join(parent, entry))
      .filter((dir) => fs.existsSync(path.join(dir, 'package.json')))
      .map((dir) => {
        const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
          name: string;
          version: string;
          private?: boolean;
        };
        return { name: manifest.name, version: manifest.version, dir, private: manifest.private === true };
      });
  });
}

export const publicPackages = (root = REPO_ROOT) => workspacePackages(root).filter((p) => !p.private);

/** Runs a command in the repository root, its output passed through; rejects on a non-zero exit. */
export function runCommand(command: string, args: string[], root = REPO_ROOT): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, {
      cwd: root,
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      maxBuffer: 256 * 1024 * 1024,
    });
    child.stdout?.pipe(process.stdout);
    child.stderr?.pipe(process.stderr);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${[command, ...args].join(' ')} exited with ${code}`))));
  });
}

/** Runs a command in the repository root and returns its standard output. */
export function captureCommand(command: string, args: string[], root = REPO_ROOT): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: root, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${[command, ...args].join(' ')} failed: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}

/** The JavaScript entry of a tool the root package.json installs (turbo, changesets), run with this Node. */
export function rootTool(specifier: string, root = REPO_ROOT): string {
  return createRequire(path.join(root, 'package.json')).resolve(specifier);
}

export const npmCommand = process.platform === 'win32' ? 'npm.cmd' : 'npm';
