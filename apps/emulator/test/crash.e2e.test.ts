// Durability: every write the emulator answered 2xx survives a SIGKILL at any moment. The built
// CLI runs on a database file under a concurrent write load (thread creates with supersteps and
// metadata, copies, deployment creates and patches); it is killed mid-load, restarted on the same
// file, and every acknowledged write must be there and whole: the thread with its metadata,
// values and full history, the deployment with its latest revision. Writes that were in flight
// when it died may or may not exist, but nothing beyond what was sent. Several rounds kill it at
// different moments of the load, each restart checking everything acknowledged so far.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createAgentServerClient } from '@agentplane/agent-server';
import { createControlPlaneClient } from '@agentplane/control-plane';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCli } from './support/cli-process.js';
import { children, startCli } from './support/cli-process.js';

const RUN = crypto.randomUUID();

/** What the load was told happened: acknowledged writes, and those sent but never answered. */
interface Ledger {
  threads: Map<string, { metadata: Record<string, unknown>; values: Record<string, unknown>; historyLength: number; copyOf?: string }>;
  deployments: Map<
    string,
    { name: string; latestRevisionId: string; imageUri: string; inFlightImageUri?: string; revisions: Map<string, string> }
  >;
  /** Thread creates and copies sent, answered or not. */
  threadWritesSent: number;
  deploymentCreatesSent: number;
}

const ledger: Ledger = { threads: new Map(), deployments: new Map(), threadWritesSent: 0, deploymentCreatesSent: 0 };

function superstepsFor(worker: number, seq: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    updates: [
      {
        as_node: i === 0 ? '__input__' : i % 2 ? 'agent' : '__start__',
        values: {
          messages: [
            { type: (i % 2 ? 'ai' : 'human') as 'ai' | 'human', content: `w${worker} #${seq} step ${i}`, id: `m-${worker}-${seq}-${i}` },
          ],
          step: i,
        },
      },
    ],
  }));
}

/** One worker: a loop of writes until the process dies (its requests then fail) or `stop()`. */
async function worker(cli: RunningCli, id: number, stop: { now: boolean }): Promise<void> {
  const agent = createAgentServerClient({ baseUrl: cli.agentServerUrl, retry: false });
  const control = createControlPlaneClient({ baseUrl: cli.controlPlaneUrl, apiKey: cli.apiKey, retry: false });
  const myDeployments: string[] = [];
  for (let seq = 0; !stop.now; seq++) {
    try {
      const kind = seq % 7;
      if (kind <= 3) {
        const threadId = crypto.randomUUID();
        const metadata = { run: RUN, worker: id, seq, nested: { tags: ['crash', `w${id}`] } };
        const steps = 1 + ((seq + id) % 5);
        ledger.threadWritesSent++;
        const { data } = await agent.POST('/threads', {
          body: { thread_id: threadId, metadata, supersteps: superstepsFor(id, seq, steps) },
        });
        if (data) ledger.threads.set(data.thread_id, { metadata, values: data.values!, historyLength: steps });
      } else if (kind === 4) {
        const sources = [...ledger.threads.keys()];
        const source = sources[(seq * 31 + id) % sources.length];
        if (!source) continue;
        ledger.threadWritesSent++;
        const { data } = await agent.POST('/threads/{thread_id}/copy', { params: { path: { thread_id: source } } });
        // A copy's metadata is its source's, marked with the copy's own thread_id.
        const original = ledger.threads.get(source)!;
        if (data)
          ledger.threads.set(data.thread_id, {
            ...original,
            metadata: { ...original.metadata, thread_id: data.thread_id },
            copyOf: source,
          });
      } else if (kind === 5 || myDeployments.length === 0) {
        const name = `crash-${id}-${seq}-${RUN.slice(0, 8)}`;
        const imageUri = `registry.example/${name}:0`;
        ledger.deploymentCreatesSent++;
        const { data } = await control.POST('/v2/deployments', {
          body: {
            name,
            source: 'external_container',
            source_config: { deployment_type: 'dev' },
            source_revision_config: { image_uri: imageUri },
            secrets: [{ name: 'TOKEN', value: `v${seq}` }],
          },
        });
        if (data) {
          ledger.deployments.set(data.id, {
            name,
            latestRevisionId: data.latest_revision_id,
            imageUri,
            revisions: new Map([[data.latest_revision_id, imageUri]]),
          });
          myDeployments.push(data.id);
        }
      } else {
        // Patches of one deployment come from its owner only, one at a time: the last
        // acknowledged one is its latest revision, unless the one in flight at the kill landed.
        const deploymentId = myDeployments[seq % myDeployments.length]!;
        const record = ledger.deployments.get(deploymentId)!;
        const imageUri = `registry.example/${record.name}:${seq}`;
        record.inFlightImageUri = imageUri;
        const { data } = await control.PATCH('/v2/deployments/{deployment_id}', {
          params: { path: { deployment_id: deploymentId } },
          body: { source_revision_config: { image_uri: imageUri } },
        });
        if (data) {
          record.latestRevisionId = data.latest_revision_id;
          record.imageUri = imageUri;
          record.revisions.set(data.latest_revision_id, imageUri);
          record.inFlightImageUri = undefined;
        }
      }
    } catch {
      // The process is gone: this request was never acknowledged.
      if (cli.child.exitCode !== null || cli.child.signalCode !== null) return;
    }
  }
}

async function runLoadAndKill(cli: RunningCli, killAfterMs: number, workers = 8): Promise<void> {
  const stop = { now: false };
  const running = Array.from({ length: workers }, (_, i) => worker(cli, i, stop));
  await new Promise((resolve) => setTimeout(resolve, killAfterMs));
  cli.child.kill('SIGKILL');
  const exit = await cli.exited;
  expect(exit.signal).toBe('SIGKILL');
  stop.now = true;
  await Promise.all(running);
}

/** Every acknowledged write is there and whole; nothing exists beyond what was sent. */
async function verify(cli: RunningCli): Promise<void> {
  const agent = createAgentServerClient({ baseUrl: cli.agentServerUrl, retry: false });
  const control = createControlPlaneClient({ baseUrl: cli.controlPlaneUrl, apiKey: cli.apiKey, retry: false });
  const problems: string[] = [];
  const entries = [...ledger.threads.entries()];
  for (let i = 0; i < entries.length; i += 16) {
    await Promise.all(
      entries.slice(i, i + 16).map(async ([threadId, expected]) => {
        const thread = await agent.GET('/threads/{thread_id}', { params: { path: { thread_id: threadId } } });
        if (!thread.data)
          return void problems.push(
            `thread ${threadId}${expected.copyOf ? ` (copy of ${expected.copyOf})` : ''}: ${thread.response.status}`,
          );
        // Deep equality: JSON gives key order no meaning, and stored values come back with their keys sorted (decision E13).
        if (!isDeepStrictEqual(thread.data.metadata, expected.metadata))
          problems.push(`thread ${threadId}: metadata ${JSON.stringify(thread.data.metadata)}`);
        const state = await agent.GET('/threads/{thread_id}/state', { params: { path: { thread_id: threadId } } });
        if (!isDeepStrictEqual(state.data?.values, expected.values))
          problems.push(`thread ${threadId}: values ${JSON.stringify(state.data?.values)}`);
        const history = await agent.POST('/threads/{thread_id}/history', {
          params: { path: { thread_id: threadId } },
          body: { limit: 1000 },
        });
        if (history.data?.length !== expected.historyLength)
          problems.push(`thread ${threadId}: history of ${history.data?.length} checkpoints, expected ${expected.historyLength}`);
      }),
    );
  }
  for (const [deploymentId, expected] of ledger.deployments) {
    const deployment = await control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deploymentId } } });
    if (!deployment.data) {
      problems.push(`deployment ${deploymentId}: ${deployment.response.status}`);
      continue;
    }
    const latest = deployment.data.source_revision_config.image_uri;
    const landed = latest === expected.imageUri ? 'acknowledged' : latest === expected.inFlightImageUri ? 'in flight' : undefined;
    if (!landed)
      problems.push(
        `deployment ${deploymentId}: latest image ${latest}, expected ${expected.imageUri}${expected.inFlightImageUri ? ` or ${expected.inFlightImageUri}` : ''}`,
      );
    if (landed === 'acknowledged' && deployment.data.latest_revision_id !== expected.latestRevisionId)
      problems.push(
        `deployment ${deploymentId}: latest revision ${deployment.data.latest_revision_id}, expected ${expected.latestRevisionId}`,
      );
    if (landed === 'in flight') {
      // The unanswered patch committed: adopt it, so later rounds expect it.
      expected.latestRevisionId = deployment.data.latest_revision_id;
      expected.imageUri = latest!;
      expected.revisions.set(expected.latestRevisionId, latest!);
    }
    expected.inFlightImageUri = undefined;
    if (deployment.data.name !== expected.name || deployment.data.secrets.map((s) => s.name).join() !== 'TOKEN')
      problems.push(`deployment ${deploymentId}: ${JSON.stringify(deployment.data)}`);
    for (const [revisionId, imageUri] of expected.revisions) {
      const revision = await control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
        params: { path: { deployment_id: deploymentId, revision_id: revisionId } },
      });
      if (revision.data?.source_revision_config.image_uri !== imageUri)
        problems.push(
          `revision ${revisionId} of ${deploymentId}: ${revision.response.status} ${JSON.stringify(revision.data ?? revision.error)}`,
        );
    }
  }
  expect(problems, 'acknowledged writes missing or damaged after SIGKILL and restart').toEqual([]);

  // Nothing beyond what was sent: every stored thread of this run was sent (acknowledged or not).
  const search = await agent.POST('/threads/search', { body: { metadata: { run: RUN }, limit: 1 } });
  const stored = Number(search.response.headers.get('x-pagination-total'));
  expect(stored).toBeGreaterThanOrEqual(ledger.threads.size);
  expect(stored).toBeLessThanOrEqual(ledger.threadWritesSent);
}

describe('SIGKILL in the middle of a write load', () => {
  let dir: string;
  let db: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-crash-'));
    db = path.join(dir, 'emulator.db');
  });
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loses no acknowledged write, at several kill moments, and resumes accepting writes', async () => {
    let apiKey: string | undefined;
    const acknowledgedPerRound: number[] = [];
    // Kill moments: right at the start of the load, early, mid, and late (the load runs until killed).
    for (const killAfterMs of [30, 250, 700, 1500]) {
      const cli = await startCli(db);
      apiKey ??= cli.apiKey;
      expect(cli.apiKey, 'the default API key is kept in the database across restarts').toBe(apiKey);
      await verify(cli);
      const before = ledger.threads.size + ledger.deployments.size;
      await runLoadAndKill(cli, killAfterMs);
      acknowledgedPerRound.push(ledger.threads.size + ledger.deployments.size - before);
      expect(cli.stderr(), 'the emulator reported an internal error or contract violation').not.toMatch(/\[agentplane-emulator\]/);
    }
    console.log(
      `crash: ${acknowledgedPerRound.length} SIGKILLs; acknowledged writes per round ${acknowledgedPerRound.join(', ')}; ` +
        `${ledger.threads.size} threads and ${ledger.deployments.size} deployments checked after each restart`,
    );
    expect(
      acknowledgedPerRound.slice(1).every((n) => n > 0),
      'each round after the first acknowledged writes before the kill',
    ).toBe(true);

    // A last restart: everything is there, and new writes are accepted and stored.
    const cli = await startCli(db);
    await verify(cli);
    const agent = createAgentServerClient({ baseUrl: cli.agentServerUrl, retry: false });
    const control = createControlPlaneClient({ baseUrl: cli.controlPlaneUrl, apiKey: cli.apiKey, retry: false });
    const thread = await agent.POST('/threads', {
      body: { metadata: { run: RUN, after: 'restart' }, supersteps: superstepsFor(99, 0, 2) },
    });
    expect(thread.response.status).toBe(200);
    const copy = await agent.POST('/threads/{thread_id}/copy', { params: { path: { thread_id: thread.data!.thread_id } } });
    expect(copy.response.status).toBe(200);
    const deployment = await control.POST('/v2/deployments', {
      body: {
        name: `after-restart-${RUN.slice(0, 8)}`,
        source: 'external_container',
        source_revision_config: { image_uri: 'registry.example/after:1' },
      },
    });
    expect(deployment.response.status).toBe(201);
    const history = await agent.POST('/threads/{thread_id}/history', { params: { path: { thread_id: copy.data!.thread_id } }, body: {} });
    expect(history.data).toHaveLength(2);

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.stderr()).not.toMatch(/\[agentplane-emulator\]/);

    const file = new Database(db, { readonly: true });
    try {
      expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(file.prepare('SELECT count(*) FROM threads WHERE thread_id = ?').pluck().get(copy.data!.thread_id)).toBe(1);
    } finally {
      file.close();
    }
  }, 120_000);
});

describe('SIGKILL while a run is in flight', () => {
  // A tool call answered at once, then a reply that takes 3 s (six words, 500 ms before each): the
  // process is killed while that reply is being written, after the run committed its first steps.
  const GRAPHS = {
    graphs: {
      orders: {
        state: { topic: null },
        replies: [
          { match: '*order*', text: '', tool_calls: [{ name: 'lookup_order', args: { order_id: '4512' } }] },
          { text: 'It shipped yesterday, as promised.', update: { topic: 'shipping' } },
        ],
        tools: { lookup_order: '{"status": "shipped"}' },
        stream: { chunk: 'word', delay_ms: 500 },
      },
    },
  };
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-crash-runs-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs the run again after the restart, from its last checkpoint, and the run queued behind it too', async () => {
    const db = path.join(dir, 'runs.db');
    const config = path.join(dir, 'graphs.json');
    fs.writeFileSync(config, JSON.stringify(GRAPHS));
    const cli = await startCli(db, config);
    const agent = createAgentServerClient({ baseUrl: cli.agentServerUrl, retry: false });
    const { data: thread } = await agent.POST('/threads', { body: { metadata: { graph_id: 'orders' } } });
    const threadId = thread!.thread_id;
    const ask = (content: string) => ({ messages: [{ type: 'human' as const, content }] });
    const { data: run } = await agent.POST('/threads/{thread_id}/runs', {
      params: { path: { thread_id: threadId } },
      body: { assistant_id: 'orders', input: ask('where is my order?') },
    });
    const { data: queued } = await agent.POST('/threads/{thread_id}/runs', {
      params: { path: { thread_id: threadId } },
      body: { assistant_id: 'orders', input: ask('thanks'), multitask_strategy: 'enqueue' },
    });
    // Killed once the tools answered: the agent's last reply is then being written.
    const history = () =>
      agent.POST('/threads/{thread_id}/history', { params: { path: { thread_id: threadId } }, body: { limit: 100 } }).then((r) => r.data!);
    for (
      let waited = 0;
      !(await history()).some((state) => state.metadata.source === 'loop' && state.next.includes('agent') && state.metadata.step === 2);
      waited += 20
    ) {
      if (waited > 20_000) throw new Error('the run did not reach its tools step within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    cli.child.kill('SIGKILL');
    await cli.exited;

    const restarted = await startCli(db, config);
    try {
      const again = createAgentServerClient({ baseUrl: restarted.agentServerUrl, retry: false });
      const joined = await again.GET('/threads/{thread_id}/runs/{run_id}/join', {
        params: { path: { thread_id: threadId, run_id: run!.run_id } },
      });
      const texts = (joined.data!.messages ?? []).map((message) => `${message.type}: ${String(message.content)}`);
      expect(texts).toEqual(['human: where is my order?', 'ai: ', 'tool: {"status": "shipped"}', 'ai: It shipped yesterday, as promised.']);
      const { data: ended } = await again.GET('/threads/{thread_id}/runs/{run_id}', {
        params: { path: { thread_id: threadId, run_id: run!.run_id } },
      });
      expect(ended!.status).toBe('success');
      // The queued run ran after it, on the same file.
      await again.GET('/threads/{thread_id}/runs/{run_id}/join', { params: { path: { thread_id: threadId, run_id: queued!.run_id } } });
      const { data: second } = await again.GET('/threads/{thread_id}/runs/{run_id}', {
        params: { path: { thread_id: threadId, run_id: queued!.run_id } },
      });
      expect(second!.status).toBe('success');
      // Its input was applied once; the steps after the restart are the run's second attempt.
      const states = (await again.POST('/threads/{thread_id}/history', { params: { path: { thread_id: threadId } }, body: { limit: 100 } }))
        .data!;
      const ofRun = states.filter((state) => state.metadata.run_id === run!.run_id).reverse();
      expect(ofRun.map((state) => [state.metadata.source, state.metadata.step, state.metadata.run_attempt])).toEqual([
        ['input', -1, 1],
        ['loop', 0, 1],
        ['loop', 1, 1],
        ['loop', 2, 1],
        ['loop', 3, 2],
      ]);
      const { data: threadAfter } = await again.GET('/threads/{thread_id}', { params: { path: { thread_id: threadId } } });
      expect(threadAfter!.status).toBe('idle');
    } finally {
      restarted.child.kill('SIGTERM');
      expect(await restarted.exited).toEqual({ code: 0, signal: null });
    }
    expect(restarted.stderr()).not.toMatch(/\[agentplane-emulator\]/);
  }, 120_000);
});
