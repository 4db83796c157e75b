// The run against the emulator, in process: the emulator keeps the contract, so every check
// passes, on both APIs, writes to the control plane and runs (of the echo graph and of the
// conformance script) included, and the run leaves nothing behind; without leave to run graphs,
// the run checks are skipped and nothing runs.
import http from 'node:http';
import type { Socket } from 'node:net';
import { createEmulator, startEmulator } from '@agentplane/emulator';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../src/index.js';
import { CONFORMANCE_GRAPH, CONFORMANCE_GRAPH_ID, runConformance, summaryTable } from '../src/index.js';

const errors: string[] = [];
const emulator = createEmulator({
  revisionStepMs: 5,
  graphs: { agent: { replies: [{ text: '{{input}}' }] }, [CONFORMANCE_GRAPH_ID]: CONFORMANCE_GRAPH },
  onError: (message) => errors.push(message),
});
afterAll(() => emulator.close());

describe('a run against the emulator', () => {
  let report: ConformanceReport;

  it('passes every check', async () => {
    report = await runConformance({
      agentServer: {
        url: emulator.agentServer.url,
        fetch: emulator.agentServer.fetch,
        graphId: 'agent',
        allowRuns: true,
        scriptedGraphId: CONFORMANCE_GRAPH_ID,
      },
      controlPlane: {
        url: emulator.controlPlane.url,
        apiKey: emulator.defaultApiKey!,
        fetch: emulator.controlPlane.fetch,
        allowWrites: true,
        pollIntervalMs: 10,
      },
    });
    console.log(summaryTable(report));
    expect(
      report.results.filter((result) => result.verdict !== 'pass').map((result) => [result.id, result.verdict, result.findings]),
    ).toEqual([]);
    expect(report.ok).toBe(true);
    expect(errors).toEqual([]);
  });

  it('leaves no thread, no assistant and no deployment behind', async () => {
    expect(report.cleanup.failures).toEqual([]);
    expect(report.cleanup.deleted).toBe(report.cleanup.created);
    const threads = await emulator.agentServer.fetch(
      new Request(`${emulator.agentServer.url}/threads/count`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
    );
    expect(await threads.json()).toBe(0);
    // Only the default assistants of the emulator's two graphs, which the run did not make.
    const assistants = await emulator.agentServer.fetch(
      new Request(`${emulator.agentServer.url}/assistants/search`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
    );
    expect(((await assistants.json()) as { metadata: unknown }[]).map((assistant) => assistant.metadata)).toEqual([
      { created_by: 'system' },
      { created_by: 'system' },
    ]);
    const deployments = await emulator.controlPlane.fetch(
      new Request(`${emulator.controlPlane.url}/v2/deployments`, { headers: { 'X-Api-Key': emulator.defaultApiKey! } }),
    );
    expect(((await deployments.json()) as { resources: unknown[] }).resources).toEqual([]);
  });
});

describe('a run against the emulator on a port', () => {
  const startOnPorts = () =>
    startEmulator({ db: ':memory:', agentServerPort: 0, controlPlanePort: 0, graphs: { agent: { replies: [{ text: '{{input}}' }] } } });

  it('passes the protocol checks, the WebSocket’s included (in process there is no socket)', async () => {
    const running = await startOnPorts();
    try {
      const report = await runConformance({
        agentServer: { url: running.agentServerUrl, graphId: 'agent', allowRuns: true },
        only: ['protocol'],
      });
      expect(
        report.results
          .filter((result) => result.verdict !== 'pass' && result.verdict !== 'skipped')
          .map((result) => [result.id, result.findings]),
      ).toEqual([]);
      expect(report.results.find((result) => result.id === 'protocol:websocket')?.verdict).toBe('pass');
    } finally {
      await running.close();
    }
  });

  it('fails the WebSocket check, saying why, when the server takes the upgrade and then says nothing', async () => {
    const running = await startOnPorts();
    // In front of it, a server that passes every request on but holds an upgrade without a word.
    const upstream = new URL(running.agentServerUrl);
    const held: Socket[] = [];
    const silent = http.createServer((request, response) => {
      const forwarded = http.request(
        { host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(forwarded);
    });
    silent.on('upgrade', (_request, socket: Socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    try {
      const report = await runConformance({
        agentServer: { url: `http://127.0.0.1:${(silent.address() as { port: number }).port}`, graphId: 'agent', allowRuns: true },
        only: ['protocol:websocket'],
      });
      const result = report.results.find((one) => one.id === 'protocol:websocket')!;
      expect(result.verdict).toBe('fail');
      expect(result.findings.map((finding) => finding.message)).toEqual([
        'the WebSocket could not be opened: the WebSocket handshake got no answer within 10 s',
      ]);
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      for (const socket of held) socket.destroy();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
      await running.close();
    }
  }, 180_000);
});

describe('a run without leave to run graphs', () => {
  it('skips the run and stream checks that run a graph, saying what they need, and runs nothing', async () => {
    const report = await runConformance({
      agentServer: { url: emulator.agentServer.url, fetch: emulator.agentServer.fetch },
      only: ['runs', 'streams'],
    });
    const streamChecks = report.results.filter((result) => result.area === 'streams');
    expect(streamChecks.length).toBeGreaterThan(8);
    // Joining the stream of a run that does not exist runs nothing.
    expect(streamChecks.filter((result) => result.verdict !== 'skipped').map((result) => result.id)).toEqual(['streams:join-unknown-run']);
    expect(streamChecks.find((result) => result.id === 'streams:framing')?.note).toMatch(/--allow-runs/);
    expect(streamChecks.find((result) => result.id === 'streams:interrupt')?.note).toMatch(/--scripted-graph-id/);
    const runChecks = report.results.filter((result) => result.area === 'runs');
    expect(runChecks.length).toBeGreaterThan(15);
    // Reading runs that do not exist runs nothing.
    expect(runChecks.filter((result) => result.verdict !== 'skipped').map((result) => result.id)).toEqual([
      'runs:unknown-run',
      'runs:join-unknown-run',
    ]);
    expect(runChecks.find((result) => result.id === 'runs:wait')?.note).toMatch(/--allow-runs/);
    expect(runChecks.find((result) => result.id === 'runs:tool-call')?.note).toMatch(/--scripted-graph-id/);
    expect(report.ok).toBe(true);
    const runs = await emulator.agentServer.fetch(
      new Request(`${emulator.agentServer.url}/threads/count`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
    );
    expect(await runs.json()).toBe(0);
  });
});
