// The recorder: a proxy in front of an upstream agent server (recording-proxy.ts) that keeps what
// a recording is made of. It reads the graphs the upstream serves when it starts; it notes each
// run the traffic makes and its stream (traffic.ts); it reads a thread's history from the upstream
// before a request deletes it, and the threads runs wrote to once the traffic pauses (a thread
// with a TTL may be gone by the end), never in the middle of it: the reads would cost the app
// under test time and the upstream work. When it stops it reads the history of every thread it
// saw once more and writes the recording (recording.ts) to its file.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, checkConfig } from '../config/config.js';
import { recordingText } from './recording.js';
import type { RecordedExchange } from './recording-proxy.js';
import { startRecordingProxy } from './recording-proxy.js';
import type { ThreadRecording } from './run-steps.js';
import { recordThread } from './run-steps.js';
import type { RunSighting } from './traffic.js';
import { pathOf, runSightingOf, threadOf } from './traffic.js';
import type { UpstreamGraph, UpstreamState } from './upstream.js';
import { Upstream } from './upstream.js';

export interface RecorderOptions {
  upstream: URL;
  /** The file the recording is written to when the recorder stops. */
  out: string;
  apiKey?: string | undefined;
  port: number;
  host: string;
  /** How long to wait for the upstream to answer at start-up (it may be starting too). */
  upstreamWaitMs?: number;
}

/** What a stopped recorder wrote. */
export interface RecordingSummary {
  file: string;
  graphs: number;
  /** Entries of the graphs' `runs`: a conversation held twice is one. */
  runs: number;
  /** What could not be recorded, one line each. */
  notes: string[];
}

export interface Recorder {
  url: string;
  /** Stops listening, reads what is left to read, and writes the recording. */
  stop(): Promise<RecordingSummary>;
}

/** A thread's histories as last read: the root's, and each subgraph's by namespace. */
interface ThreadCapture {
  root: UpstreamState[];
  subgraphs: Map<string, UpstreamState[]>;
}

export class UpstreamUnreachable extends Error {}

/** Why an upstream that answers is not recorded: what it answered, and what an agent server answers instead. */
function notAnAgentServer(upstream: URL, answer: { status: number; body: string }): string {
  const where = `${upstream.href.replace(/\/$/, '')}/ok`;
  if (answer.status === 401 || answer.status === 403)
    return `the upstream ${upstream.origin} refuses the recorder (GET ${where} answered ${answer.status}): give its API key with --upstream-api-key or AGENTPLANE_UPSTREAM_API_KEY (LANGSMITH_API_KEY is read too)`;
  return `the upstream ${upstream.origin} answers, but not as an agent server: GET ${where} answered ${answer.status}${answer.body ? ` (${JSON.stringify(answer.body.slice(0, 80))})` : ''}, where an agent server answers 200 {"ok": true}. Is --upstream the agent server's root URL (a \`langgraph dev\` prints it: http://127.0.0.1:2024)?`;
}

/** How long the traffic must pause before the threads runs wrote to are read. */
const IDLE_MS = 250;

export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const upstream = new Upstream(options.upstream, options.apiKey);
  const deadline = Date.now() + (options.upstreamWaitMs ?? 60_000);
  for (;;) {
    const answer = await upstream.probe();
    if (answer?.status === 200) break;
    // A server that answers, but not 200 and not because it is starting (5xx), is not an agent server there: no wait helps.
    if (answer && answer.status < 500) throw new UpstreamUnreachable(notAnAgentServer(options.upstream, answer));
    if (Date.now() > deadline)
      throw new UpstreamUnreachable(
        `the upstream agent server ${options.upstream.origin} does not answer GET /ok within ${Math.round((options.upstreamWaitMs ?? 60_000) / 1000)} s (${answer ? `it answered ${answer.status}` : 'nothing listens there'}; is it running? is its URL right?)`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  let graphs: UpstreamGraph[] = await upstream.graphs();
  const sightings = new Map<string, RunSighting>();
  const threads = new Set<string>();
  const captures = new Map<string, ThreadCapture>();
  const capturing = new Map<string, Promise<void>>();
  const secrets = new Set<string>(options.apiKey ? [options.apiKey] : []);
  const notes: string[] = [];
  /** Stateless runs made in the background, whose threads are read (and deleted) when the recorder stops. */
  const inBackground = new Set<string>();
  /** Threads runs wrote to since they were last read: read once the traffic pauses. */
  const unread = new Set<string>();
  let lastTraffic = Date.now();
  const readUnread = () => {
    const threadIds = [...unread];
    unread.clear();
    return Promise.all(threadIds.map(capture));
  };
  const idleReader = setInterval(() => {
    if (unread.size > 0 && Date.now() - lastTraffic >= IDLE_MS) void readUnread();
  }, IDLE_MS);
  idleReader.unref();

  /** A stateless run's thread, found, read and deleted, as the upstream would have deleted it. */
  const readStateless = async (runId: string) => {
    try {
      const threadId = await upstream.threadOfRun(runId);
      if (!threadId) return;
      const sighting = sightings.get(runId);
      if (sighting) sighting.threadId = threadId;
      await capture(threadId);
      await upstream.deleteThread(threadId);
    } catch (error) {
      notes.push(`the thread of stateless run ${runId} could not be read: ${(error as Error).message}`);
    }
  };
  const readingStateless: Promise<void>[] = [];

  /** Reads a thread's histories now (one read at a time per thread: a later one waits for the earlier). */
  const capture = (threadId: string): Promise<void> => {
    const previous = capturing.get(threadId) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        captures.set(threadId, await readThread(upstream, threadId));
      } catch {
        // Deleted meanwhile, or the upstream went away: the last read stays.
      }
    });
    capturing.set(threadId, next);
    return next;
  };

  const onExchange = (exchange: RecordedExchange) => {
    lastTraffic = Date.now();
    for (const header of ['x-api-key', 'authorization']) {
      const value = exchange.requestHeaders[header];
      for (const secret of [value].flat()) if (typeof secret === 'string' && secret !== '') secrets.add(secret.replace(/^Bearer\s+/i, ''));
    }
    const threadId = threadOf(exchange.target);
    if (threadId && !(exchange.method === 'DELETE' && pathOf(exchange.target) === `/threads/${threadId}`)) threads.add(threadId);
    const sighting = runSightingOf(exchange);
    if (!sighting) return;
    if (!sighting.threadId && exchange.rewritten) {
      // A waited or streamed run has ended with its answer; one made in the background is read at the end.
      if (/^\/runs$/.test(pathOf(exchange.target))) inBackground.add(sighting.runId);
      else readingStateless.push(readStateless(sighting.runId));
    }
    const known = sightings.get(sighting.runId);
    // Several readers of one run: the stream that showed the most, with the request that made it.
    if (!known || sighting.events.length > known.events.length)
      sightings.set(sighting.runId, { ...sighting, body: sighting.body ?? known?.body });
    if (sighting.threadId) {
      threads.add(sighting.threadId);
      unread.add(sighting.threadId);
    }
  };

  const proxy = await startRecordingProxy({
    upstream: options.upstream,
    apiKey: options.apiKey,
    port: options.port,
    host: options.host,
    onExchange,
    // A stateless run's thread is kept for the recorder to read (it deletes it afterwards, as the
    // upstream would have): the run's steps are read from its history as any run's.
    rewriteBody(method, target, body) {
      if (method !== 'POST' || !/^\/runs(\/wait|\/stream)?$/.test(pathOf(target))) return body;
      try {
        const run = JSON.parse(body.toString('utf8'));
        if (run === null || typeof run !== 'object' || Array.isArray(run) || (run.on_completion ?? 'delete') !== 'delete') return body;
        return Buffer.from(JSON.stringify({ ...run, on_completion: 'keep' }));
      } catch {
        return body;
      }
    },
    // A thread about to be deleted is read first: its runs are recorded all the same. A request
    // that may delete threads it does not name (a prune, an assistant deleted with its threads)
    // waits for every thread not read since its last run.
    async beforeForward(method, target) {
      lastTraffic = Date.now();
      const threadId = threadOf(target);
      const path = pathOf(target);
      if (method === 'DELETE' && threadId && path === `/threads/${threadId}`) {
        unread.delete(threadId);
        await capture(threadId);
        threads.delete(threadId);
      } else if ((method === 'POST' && path === '/threads/prune') || (method === 'DELETE' && /^\/assistants\/[^/]+$/.test(path))) {
        await readUnread();
      }
    },
  });

  return {
    url: proxy.url,
    async stop() {
      clearInterval(idleReader);
      await proxy.close();
      await Promise.all(readingStateless);
      await Promise.all([...inBackground].map(readStateless));
      await Promise.all(capturing.values());
      await Promise.all([...threads].map(capture));
      try {
        graphs = await upstream.graphs();
      } catch {
        notes.push('the upstream did not answer at the end: its graphs are as they were when the recording began');
      }
      for (const graph of graphs)
        for (const missing of graph.missing) notes.push(`graph ${graph.graphId}: the upstream did not answer ${missing}`);
      const recordings: ThreadRecording[] = [];
      // Threads in the order their first checkpoints were written: entries keep the order in
      // which the conversations were held, whenever each thread was read.
      const firstWritten = (captured: ThreadCapture) =>
        captured.root.reduce((first, state) => (state.created_at < first ? state.created_at : first), '\uffff');
      const inOrder = [...captures].sort(([, a], [, b]) =>
        firstWritten(a) < firstWritten(b) ? -1 : firstWritten(a) > firstWritten(b) ? 1 : 0,
      );
      for (const [threadId, captured] of inOrder) {
        const ofThread = new Map([...sightings].filter(([, sighting]) => sighting.threadId === threadId));
        const recording = recordThread(threadId, captured.root, (namespace) => captured.subgraphs.get(namespace) ?? [], ofThread);
        recordings.push(recording);
        notes.push(...recording.notes);
      }
      const recordedRuns = new Set(
        captures.size > 0 ? [...captures.values()].flatMap((captured) => captured.root.map((state) => state.metadata.run_id)) : [],
      );
      for (const [runId, sighting] of sightings)
        if (!recordedRuns.has(runId))
          notes.push(
            `run ${runId}${sighting.threadId ? ` on thread ${sighting.threadId}` : ''} left no history to read (a stateless run's thread is deleted with it): left out`,
          );
      const recording = recordingText({
        upstream: options.upstream.href,
        graphs,
        threads: recordings,
        secrets: [...secrets],
        recordedAt: new Date(),
        out: options.out,
      });
      writeAtomically(options.out, recording.text);
      // Written all the same (a person may fix it by hand), but said: a replay would refuse it.
      try {
        checkConfig(recording.config, options.out);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        notes.push(`the emulator would refuse this recording as it stands (edit it, or leave out what it names): ${error.message}`);
      }
      return { file: options.out, graphs: recording.graphs, runs: recording.runs, notes };
    },
  };
}

/** A thread's root history and the histories of the subgraphs its tasks name, at any depth. */
async function readThread(upstream: Upstream, threadId: string): Promise<ThreadCapture> {
  const root = await upstream.history(threadId);
  const subgraphs = new Map<string, UpstreamState[]>();
  const pending = namespacesOf(root);
  while (pending.length > 0) {
    const namespace = pending.shift()!;
    if (subgraphs.has(namespace)) continue;
    const states = await upstream.history(threadId, namespace);
    subgraphs.set(namespace, states);
    pending.push(...namespacesOf(states));
  }
  return { root, subgraphs };
}

function namespacesOf(states: readonly UpstreamState[]): string[] {
  return [
    ...new Set(
      states.flatMap((state) => state.tasks.flatMap((task) => (task.checkpoint?.checkpoint_ns ? [task.checkpoint.checkpoint_ns] : []))),
    ),
  ];
}

/** Writes the file whole or not at all: a stopped recorder never leaves half a recording. */
function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}
