// The guide's commands as a reader runs them, from a folder holding the README's graphs.yaml, in
// bash (-e, as GitHub Actions runs a step):
// - the install part's `npx agentplane-emulator` prints the lines the README shows, and Ctrl-C (a
//   SIGINT to its process group) stops it with them;
// - the conversation part's command serves the config, and the conversation example passes
//   against it;
// - the CI job's start step returns once the emulator is ready, the conversation passes, and its
//   stop step stops it cleanly; with a graph the emulator refuses, the start step fails and prints
//   the problems.
// The only things the test sets are where the ports come from (free ones, through the emulator's
// AGENTPLANE_EMULATOR_* variables) and the folder relative paths are read from, since npx runs the
// bin from the nearest package.json's folder.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conversationAt, exampleDir, GUIDE, readmeBlock, readmeBlocks, runExample, workflowStep } from './support/readme-examples.js';

const DIR = exampleDir('testing-guide-ci');
const started: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(started.map(stopGroup));
  fs.rmSync(DIR, { recursive: true, force: true });
});

/** A README command, run in bash -e from DIR in a process group of its own, on free ports. */
function start(command: string): { step: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const step = spawn('bash', ['-e', '-c', command], {
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
  return { step, output: () => output, exit: new Promise((resolve) => step.once('exit', resolve)) };
}

/** Resolves once `text` is in what `read` gives, or fails after 60 s. */
async function printed(text: string | RegExp, read: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  const found = () => (typeof text === 'string' ? read().includes(text) : text.test(read()));
  while (!found()) {
    if (Date.now() > deadline) throw new Error(`never printed ${text}:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The agent server's URL from the emulator's ready line. */
function agentServerOf(output: string): string {
  const url = /ready: .* agent server (\S+)/.exec(output)?.[1];
  expect(url, output).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  return url!;
}

/** The CI job's start step, run as the job runs it; resolves when bash exits. */
async function runStartStep(): Promise<{ code: number | null; output: string; step: ChildProcess }> {
  // A fresh log: the step's wait reads it, and may do so before its backgrounded emulator has
  // truncated the one an earlier run left (a `ready` line from that run would end the wait at once).
  fs.rmSync(path.join(DIR, 'emulator.log'), { force: true });
  const { step, output, exit } = start(workflowStep('Start the emulator'));
  const code = await exit;
  return { code, output: output(), step };
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

describe('the guide in your project', () => {
  it('installed, `npx agentplane-emulator` prints what the README shows, and Ctrl-C stops it with the lines shown', async () => {
    const command = readmeBlocks('Install it in your project', 'sh')[0]?.split('\n')[1];
    expect(command).toBe('npx agentplane-emulator');
    const shown = readmeBlocks('Install it in your project', 'text')[0]?.split('\n') ?? [];
    expect(shown).toHaveLength(4);
    const emulator = start(command!);
    await printed(' ready: ', emulator.output);
    process.kill(-emulator.step.pid!, 'SIGINT');
    await emulator.exit;
    await printed('stopped', emulator.output);
    // The key and the ports are this run's; the rest is as the README shows it, line by line.
    const general = (text: string) => text.replace(/API key \S+/, 'API key <key>').replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
    const lines = emulator
      .output()
      .split('\n')
      .filter((line) => line.startsWith('agentplane-emulator'));
    expect(lines.map(general)).toEqual(shown.map(general));
    // Without --db, its database is in the folder it was run from.
    expect(fs.existsSync(path.join(DIR, '.agentplane', 'emulator.db'))).toBe(true);
  });

  it('serves the graphs config with the command the conversation part gives; the conversation passes against it', async () => {
    fs.writeFileSync(path.join(DIR, 'graphs.yaml'), readmeBlocks('Scripted graphs', 'yaml')[0] ?? '');
    const command = readmeBlock(GUIDE, 'sh', '--config graphs.yaml');
    const emulator = start(command);
    await printed(' ready: ', emulator.output);
    await runExample(DIR, 'conversation-local', conversationAt(agentServerOf(emulator.output())));
    process.kill(-emulator.step.pid!, 'SIGINT');
    await printed('stopped', emulator.output);
  });
});

describe('the guide in CI', () => {
  it('starts the emulator with the graphs config and returns once it is ready; the conversation passes; the stop step stops it', async () => {
    fs.writeFileSync(path.join(DIR, 'graphs.yaml'), readmeBlocks('Scripted graphs', 'yaml')[0] ?? '');
    const { code, output } = await runStartStep();
    expect(code, output).toBe(0);
    const log = () => fs.readFileSync(path.join(DIR, 'emulator.log'), 'utf8');
    await runExample(DIR, 'conversation', conversationAt(agentServerOf(log())));
    const stop = start(workflowStep('Stop the emulator'));
    expect(await stop.exit, stop.output()).toBe(0);
    expect(log()).toContain('agentplane-emulator: stopped');
  });

  it('fails the step with the problems of a graph the emulator refuses', async () => {
    fs.writeFileSync(path.join(DIR, 'graphs.yaml'), readmeBlocks('Scripted graphs', 'yaml')[1] ?? '');
    const { code, output } = await runStartStep();
    expect(code).toBe(1);
    // The emulator names the file as it was given (here under the example's folder); the README
    // shows it given as graphs.yaml.
    const asInReadme = output.replaceAll(/\S*\/graphs\.yaml/g, 'graphs.yaml');
    expect(asInReadme).toContain('graphs.yaml is invalid:');
    for (const line of (readmeBlocks('Scripted graphs', 'text')[0] ?? '').split('\n')) expect(asInReadme).toContain(line);
  });
});
