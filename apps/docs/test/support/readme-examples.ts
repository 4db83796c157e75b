// The emulator README's examples as the guide "Test your agent app without an LLM" shows them, and
// how the docs' tests run them: each TypeScript block is written to a module inside the repository
// (so that it imports the built packages as a user would) and imported, which runs its top-level
// awaits and assertions.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@agentplane/openapi-toolkit';
import YAML from 'yaml';
import { sectionCodeBlocks } from '../../src/guide.js';
import { testingReadme } from '../../src/testing-guide.js';

export const README = testingReadme(REPO_ROOT);
export const GUIDE = 'Test your agent app without an LLM';

/** The README's code blocks of one language in a section, read afresh (a section that is gone throws). */
export const readmeBlocks = (heading: string, lang: string): string[] =>
  sectionCodeBlocks(fs.readFileSync(README, 'utf8'), { heading, lang });

/** The README's first block of a language in a section that contains `contains`; throws when there is none. */
export function readmeBlock(heading: string, lang: string, contains: string): string {
  const found = readmeBlocks(heading, lang).find((block) => block.includes(contains));
  if (found === undefined) throw new Error(`${README}: section "${heading}" has no ${lang} block with ${JSON.stringify(contains)}`);
  return found;
}

/** The GitHub Actions job of the guide's CI part, and the `run:` of its step named `name`. */
export function workflowStep(name: string): string {
  const workflow = YAML.parse(readmeBlock(GUIDE, 'yaml', '# .github/workflows/test.yml')) as {
    jobs: Record<string, { steps: { name?: string; run?: string }[] }>;
  };
  const run = Object.values(workflow.jobs)
    .flatMap((job) => job.steps)
    .find((step) => step.name === name)?.run;
  if (run === undefined) throw new Error(`${README}: the guide's workflow has no step "${name}" with a run`);
  return run;
}

/** A fresh folder for one test file's examples, under the gitignored `.readme-examples/`. */
export function exampleDir(name: string): string {
  const dir = path.join(REPO_ROOT, 'apps', 'docs', '.readme-examples', name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Runs a TypeScript example as a module; resolves once its top-level code has run. */
export async function runExample(dir: string, name: string, code: string): Promise<void> {
  const file = path.join(dir, `${name}.ts`);
  fs.writeFileSync(file, `${code}\nexport {};\n`);
  await import(file);
}

/** The conversation example, pointed at `agentServerUrl` instead of the README's port 8123. */
export function conversationAt(agentServerUrl: string): string {
  const conversation = readmeBlock(GUIDE, 'ts', "new Client({ apiUrl: 'http://127.0.0.1:8123'");
  const parts = conversation.split("'http://127.0.0.1:8123'");
  if (parts.length !== 2) throw new Error(`the conversation example should name 'http://127.0.0.1:8123' once:\n${conversation}`);
  return parts.join(`'${agentServerUrl}'`);
}
