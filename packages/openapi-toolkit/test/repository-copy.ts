// A disposable copy of the repository for tests that change it (the release): the working tree
// as git sees it (tracked and unignored files), its own git history of one commit, and a
// node_modules that links to the real one's installed packages but to the copy's own workspace
// packages, so building in the copy never touches the real repository.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../src/apis.js';

export function copyRepository(): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-repo-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && fs.existsSync(path.join(REPO_ROOT, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, file), path.join(copy, file));
  }
  mirrorModules(path.join(REPO_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: copy, stdio: 'pipe' });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '--all');
  git('-c', 'user.name=release test', '-c', 'user.email=release@test.invalid', 'commit', '--quiet', '--message', 'copy');
  return copy;
}

// Links keep their (relative) targets, so workspace links land in the copy; installed packages
// become links to the real ones; scope folders and .bin are rebuilt one level down.
function mirrorModules(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else if (entry.isDirectory() && (entry.name.startsWith('@') || entry.name === '.bin')) mirrorModules(source, target);
    else if (entry.isDirectory()) fs.symlinkSync(source, target);
  }
}
