// `agentplane conformance` interrupted, as a process: the built bin runs against the emulator on a
// TCP port, through a proxy that holds the run's first search until the test has sent SIGINT, so
// that the interrupt lands mid-run with the run's threads live, whatever the machine's speed. It
// must exit 130 after deleting every thread it created, and leave the threads it did not create
// exactly as they were.
import { spawn } from 'node:child_process';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Thread } from '@agentplane/agent-server';
import { createAgentServerClient } from '@agentplane/agent-server';
import type { RunningEmulator } from '@agentplane/emulator';
import { startEmulator } from '@agentplane/emulator';
import type { InterceptingProxy } from '@agentplane/openapi-toolkit/testing';
import { startInterceptingProxy } from '@agentplane/openapi-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/agentplane.js');
const RUN_TAG = 'agentplane_conformance_run';

// Deadlines, not measurements (decision T1): under a full `npm test` on two cores this process
// shares the machine with every other e2e suite, so they are generous, and each names what it
// waited for rather than letting the test's own timeout hide it.
const TEST_TIMEOUT_MS = 180_000;
async function until(condition: () => boolean, what: () => string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let emulator: RunningEmulator;
let proxy: InterceptingProxy;
let proxyUrl: string;
/** Set once a search is held; the proxy forwards everything once `holding` is off. */
let held: http.ServerResponse | undefined;
let holding = true;

beforeAll(async () => {
  emulator = await startEmulator({ db: ':memory:', controlPlanePort: 0, agentServerPort: 0 });
  proxy = await startInterceptingProxy(emulator.agentServerUrl, (request, response) => {
    if (!holding || request.method !== 'POST' || request.url !== '/threads/search') return false;
    // Never answered: the CLI aborts it on SIGINT.
    held = response;
    request.resume();
    return true;
  });
  proxyUrl = proxy.url;
});
afterAll(async () => {
  held?.destroy();
  await proxy?.close();
  await emulator?.close();
});

describe('agentplane conformance, interrupted', () => {
  it(
    'exits 130 after deleting its own threads, and leaves the others untouched',
    async () => {
      const client = createAgentServerClient({ baseUrl: emulator.agentServerUrl });
      // Threads the run did not create: one plain, one with state, one whose metadata even looks
      // like the run's (another key's value), all to be found unchanged afterwards.
      const others: Thread[] = [];
      for (const metadata of [{ owner: 'someone' }, { owner: 'someone', kind: 'stateful' }, { note: RUN_TAG }]) {
        const { data } = await client.POST('/threads', {
          body: {
            metadata,
            ...(metadata.kind ? { supersteps: [{ updates: [{ as_node: 'agent', values: { topic: 'kept' } }] }] } : {}),
          },
        });
        others.push(data!);
      }
      const snapshot = async () =>
        (await client.POST('/threads/search', { body: { limit: 1000 } })).data!.toSorted((a, b) => a.thread_id.localeCompare(b.thread_id));
      const before = await snapshot();
      expect(before.map((t) => t.thread_id).sort()).toEqual(others.map((t) => t.thread_id).sort());

      const child = spawn(process.execPath, [BIN, 'conformance', '--agent-server', proxyUrl, '--only', 'threads'], {
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      let code: number | null | undefined;
      child.once('exit', (exitCode) => {
        code = exitCode;
      });

      // The threads checks before the first search have finished, and that search is held.
      await until(
        () => held !== undefined || code !== undefined,
        () => `the run to send its first search (stderr so far: ${stderr.slice(-800)})`,
      );
      expect(code, `the CLI exited before its first search: ${stderr.slice(-800)}`).toBeUndefined();
      const finished = stderr.split('\n').filter((line) => /^[✔✖–·] agent-server/.test(line)).length;
      expect(finished).toBeGreaterThanOrEqual(3);
      const tagged = await client.POST('/threads/search', { body: { limit: 1000 } });
      const live = tagged.data!.filter((t) => t.metadata && RUN_TAG in t.metadata);
      expect(live.length, 'threads of the run live when interrupted').toBeGreaterThan(0);

      holding = false;
      child.kill('SIGINT');
      await until(
        () => code !== undefined,
        () => `the CLI to exit after SIGINT (stdout: ${stdout.slice(-500)}; stderr: ${stderr.slice(-800)})`,
      );
      expect(code).toBe(130);
      expect(stdout).toContain(': interrupted.');
      const runId = /metadata\.agentplane_conformance_run = ([0-9a-f-]{36})/.exec(stdout)?.[1];
      expect(runId, stdout).toBeDefined();
      expect(live.every((t) => t.metadata![RUN_TAG] === runId)).toBe(true);
      expect(stdout).toMatch(/cleanup: (\d+) of \1 created resource\(s\) deleted/);

      // Nothing tagged with the run is left: not by its tag, not by the key at all.
      expect((await client.POST('/threads/search', { body: { metadata: { [RUN_TAG]: runId }, limit: 1000 } })).data).toEqual([]);
      expect((await client.POST('/threads/count', { body: { metadata: { [RUN_TAG]: runId } } })).data).toBe(0);
      const after = await snapshot();
      expect(after.filter((t) => t.metadata && RUN_TAG in t.metadata)).toEqual([]);
      // The others, exactly as they were (updated_at included), state too.
      expect(after).toEqual(before);
      const state = await client.GET('/threads/{thread_id}/state', { params: { path: { thread_id: others[1]!.thread_id } } });
      expect(state.data?.values).toEqual({ topic: 'kept' });
    },
    TEST_TIMEOUT_MS,
  );
});
