// The guide's CI step as a pipeline runs it: the README's shell block, as written, in bash -e (as
// GitHub Actions runs a step), from a folder holding the README's graphs.yaml. It starts the
// emulator through `npx agentplane-emulator` and returns once it is ready, and the conversation
// example then passes against it; with a graph the emulator refuses, the step fails and prints the
// problems. The only thing the test sets is where the ports come from (free ones, through the
// emulator's AGENTPLANE_EMULATOR_* variables) and the folder relative paths are read from, since
// npx runs the bin from the nearest package.json's folder.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conversationAt, exampleDir, GUIDE, readmeBlocks, runExample } from './support/readme-examples.js';

const DIR = exampleDir('testing-guide-ci');
const started: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(started.map(stopGroup));
  fs.rmSync(DIR, { recursive: true, force: true });
});

/** The CI block, run in bash -e from DIR in a process group of its own; resolves when bash exits. */
function runCiStep(): Promise<{ code: number | null; output: string; step: ChildProcess }> {
  const block = readmeBlocks(GUIDE, 'sh').find((b) => b.includes('npx agentplane-emulator'));
  if (!block) throw new Error('the guide has no CI block');
  // A fresh log: the block's wait reads it, and may do so before its backgrounded emulator has
  // truncated the one an earlier run left (a `ready` line from that run would end the wait at once).
  fs.rmSync(path.join(DIR, 'emulator.log'), { force: true });
  const step = spawn('bash', ['-e', '-c', block], {
    cwd: DIR,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      AGENTPLANE_INIT_CWD: DIR,
      AGENTPLANE_EMULATOR_AGENT_SERVER_PORT: '0',
      AGENTPLANE_EMULATOR_CONTROL_PLANE_PORT: '0',
    },
  });
  started.push(step);
  let output = '';
  step.stdout!.on('data', (chunk) => (output += chunk));
  step.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => step.once('exit', (code) => resolve({ code, output, step })));
}

/** Stops what the step left running (the emulator, through npx): its whole process group. */
async function stopGroup(step: ChildProcess): Promise<void> {
  const group = step.pid!;
  const alive = () => {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) process.kill(-group, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive()) process.kill(-group, 'SIGKILL');
}

describe('the guide in CI', () => {
  it('starts the emulator with the graphs config and returns once it is ready; the conversation passes against it', async () => {
    fs.writeFileSync(path.join(DIR, 'graphs.yaml'), readmeBlocks('Scripted graphs', 'yaml')[0] ?? '');
    const { code, output, step } = await runCiStep();
    expect(code, output).toBe(0);
    const log = fs.readFileSync(path.join(DIR, 'emulator.log'), 'utf8');
    const agentServer = /ready: .* agent server (\S+)/.exec(log)?.[1];
    expect(agentServer, log).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await runExample(DIR, 'conversation', conversationAt(agentServer!));
    await stopGroup(step);
    expect(fs.readFileSync(path.join(DIR, 'emulator.log'), 'utf8')).toContain('stopping');
  });

  it('fails the step with the problems of a graph the emulator refuses', async () => {
    fs.writeFileSync(path.join(DIR, 'graphs.yaml'), readmeBlocks('Scripted graphs', 'yaml')[1] ?? '');
    const { code, output } = await runCiStep();
    expect(code).toBe(1);
    // The emulator names the file as it was given (here under the example's folder); the README
    // shows it given as graphs.yaml.
    const asInReadme = output.replaceAll(/\S*\/graphs\.yaml/g, 'graphs.yaml');
    expect(asInReadme).toContain('graphs.yaml is invalid:');
    for (const line of (readmeBlocks('Scripted graphs', 'text')[0] ?? '').split('\n')) expect(asInReadme).toContain(line);
  });
});
