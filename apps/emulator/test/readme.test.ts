import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeExamples, readmeSectionBlocks, typecheckReadmeExamples } from '@agentplane/openapi-toolkit/testing';
import { expect, it } from 'vitest';
import { USAGE } from '../src/cli.js';
import { RECORD_USAGE } from '../src/recorder/record-command.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const README = path.join(packageDir, 'README.md');

it('README examples type-check against the built package', () => {
  expect(readmeExamples(packageDir).length).toBeGreaterThanOrEqual(1);
  expect(typecheckReadmeExamples(packageDir)).toEqual([]);
}, 180_000);

it("the README's Running it names every option and variable of both commands' --help, and each exit code", () => {
  const markdown = fs.readFileSync(README, 'utf8');
  // The section exists (readmeSectionBlocks throws without it), then its text up to the next `## `.
  readmeSectionBlocks(README, 'Running it', 'yaml');
  const running = markdown.slice(markdown.indexOf('\n## Running it\n')).split(/\n## /)[1] ?? '';
  const named = (usage: string) => [...new Set(usage.match(/--[a-z][a-z-]+|\b[A-Z][A-Z_]+_(?:[A-Z]+)\b/g) ?? [])];
  const emulator = named(USAGE);
  const recorder = named(RECORD_USAGE);
  // What the two usages name, read as the test expects (so that a reading that finds nothing fails).
  expect(emulator).toEqual(expect.arrayContaining(['--config', '--detached', 'AGENTPLANE_EMULATOR_DETACHED', 'INIT_CWD']));
  expect(recorder).toEqual(expect.arrayContaining(['--upstream', '--wait-for-upstream', 'LANGSMITH_API_KEY']));
  for (const name of [...emulator, ...recorder]) expect(running, name).toContain(`\`${name}`);
  for (const heading of ['### The command line', '### Exit codes', '### Stopping']) expect(running).toContain(heading);
  for (const code of ['0', '1', '2']) expect(running).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
});
