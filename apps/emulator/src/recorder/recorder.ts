// The recorder: a proxy in front of an upstream agent server (recording-proxy.ts) that keeps what
// a recording is made of, as it sees it. It reads the graphs the upstream serves when it starts;
// it notes each run the traffic makes and its stream (traffic.ts); it reads a run's thread (its
// history, its subgraphs', its runs) when the run ends, before the client gets the end of the
// answer, so that the client's next request (a delete, a wipe of the server) cannot take it away;
// runs made in the background are read once the traffic pauses, and before a request deletes
// their thread. When it stops, it reads again only what it has not seen end, and writes the
// recording (recording.ts): stopping the upstream first loses nothing that had ended.
//
// A run it could not read is said, and makes the recording incomplete: an incomplete recording
// never replaces a file silently (it is written beside it), and the command exits non-zero.
import fs from 'node:fs';
import path from 'node:path';
import { servableRecording } from './recording.js';
import type { RecordedExchange } from './recording-proxy.js';
import { startRecordingProxy } from './recording-proxy.js';
import type { ThreadCapture, ThreadRecording } from './thread-runs.js';
import { recordThread } from './thread-runs.js';
import type { RunSighting } from './traffic.js';
import { pathOf, runSightingOf, threadOf } from './traffic.js';
import type { UpstreamGraph, UpstreamState } from './upstream.js';
import { Upstream } from './upstream.js';

type Values = Record<string, unknown>;

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
  /** Where the recording was written: `out`, or beside it when it is incomplete and `out` held a recording. */
  file: string;
  graphs: number;
  /** Entries of the graphs' `runs`. */
  runs: number;
  /** What the recorder says of the recording, one line each. */
  notes: string[];
  /** What it could not record, one line each: a recording with any is incomplete. */
  lost: string[];
}

export interface Recorder {
  url: string;
  /** Stops listening, reads what is left to read, and writes the recording. */
  stop(): Promise<RecordingSummary>;
}

export class UpstreamUnreachable extends Error {}

/** Why an upstream that answers is not recorded: what it answered, and what an agent server answers instead. */
function notAnAgentServer(upstream: URL, answer: { status: number; body: string }): string {
  const where = `${upstream.href.replace(/\/$/, '')}/ok`;
  if (answer.status === 401 || answer.status === 403)
    return `the upstream ${upstream.origin} refuses the recorder (GET ${where} answered ${answer.status}): give its API key with --upstream-api-key or AGENTPLANE_UPSTREAM_API_KEY (LANGSMITH_API_KEY is read too)`;
  return `the upstream ${upstream.origin} answers, but not as an agent server: GET ${where} answered ${answer.status}${answer.body ? ` (${JSON.stringify(answer.body.slice(0, 80))})` : ''}, where an agent server answers 200 {"ok": true}. Is --upstream the agent server's root URL (a \`langgraph dev\` prints it: http://127.0.0.1:2024)?`;
}

/** How long the traffic must pause before the threads of background runs are read. */
const IDLE_MS = 250;
/** The longest a client waits for the end of a run's answer while the recorder reads the run's thread. */
const READ_TIMEOUT_MS = 10_000;

const UUID = '[0-9a-fA-F-]{36}';
/** Requests whose answer ends a run: waiting for it, joining it, streaming it, or joining its stream. */
const ENDS_A_RUN = new RegExp(`^/(?:threads/(${UUID})/)?runs(?:/(?:wait|stream)|/(${UUID})/(?:join|stream))$`);
const RUN_OF_THREAD = new RegExp(`^/threads/(${UUID})/runs/(${UUID})(?:/cancel)?$`);

export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const upstream = new Upstream(options.upstream, options.apiKey);
  const deadline = Date.now() + (options.upstreamWaitMs ?? 60_000);
  for (;;) {
    const answer = await upstream.probe();
    if (answer?.status === 200) break;
    // A server that answers, but not 200 and not because it is starting (5xx), is not an agent server there: no wait helps.
    if (answer && answer.status < 500) {
      upstream.close();
      throw new UpstreamUnreachable(notAnAgentServer(options.upstream, answer));
    }
    if (Date.now() > deadline) {
      upstream.close();
      throw new UpstreamUnreachable(
        `the upstream agent server ${options.upstream.origin} does not answer GET /ok within ${Math.round((options.upstreamWaitMs ?? 60_000) / 1000)} s (${answer ? `it answered ${answer.status}` : 'nothing listens there'}; is it running? is its URL right?)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  let graphs: UpstreamGraph[] = await upstream.graphs();
  const sightings = new Map<string, RunSighting>();
  const captures = new Map<string, ThreadCapture>();
  /** Why a thread's last read failed, by thread. */
  const readErrors = new Map<string, string>();
  const capturing = new Map<string, Promise<void>>();
  const secrets = new Set<string>(options.apiKey ? [options.apiKey] : []);
  const notes: string[] = [];
  /** Stateless runs made in the background, whose threads are read (and deleted) once they end. */
  const statelessInBackground = new Set<string>();
  /** Stateless runs whose thread the recorder asked the upstream to keep, to delete once read. */
  const keptForReading = new Set<string>();
  /** Threads with runs made in the background, to read once the traffic pauses. */
  const unread = new Set<string>();
  let lastTraffic = Date.now();

  /** Reads a thread now (one read at a time per thread: a later one waits for the earlier). */
  const capture = (threadId: string): Promise<void> => {
    const previous = capturing.get(threadId) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        captures.set(threadId, await readThread(upstream, threadId));
        readErrors.delete(threadId);
      } catch (error) {
        // Deleted meanwhile, or the upstream went away: the last read stays, and why is kept.
        readErrors.set(threadId, (error as Error).message);
      }
    });
    capturing.set(threadId, next);
    return next;
  };
  const readUnread = () => {
    const threadIds = [...unread];
    unread.clear();
    return Promise.all(threadIds.map(capture));
  };
  const idleReader = setInterval(() => {
    if (Date.now() - lastTraffic < IDLE_MS) return;
    if (unread.size > 0) void readUnread();
    for (const runId of statelessInBackground) void readStateless(runId, true);
  }, IDLE_MS);
  idleReader.unref();

  /**
   * A stateless run's thread, found and read once the run has ended, and deleted as the upstream
   * would have (unless its client asked to keep it).
   */
  const readStateless = async (runId: string, onlyIfEnded = false): Promise<void> => {
    const sighting = sightings.get(runId);
    try {
      const threadId = sighting?.threadId ?? (await upstream.threadOfRun(runId));
      if (!threadId) throw new Error('no thread of the upstream has it');
      if (sighting) sighting.threadId = threadId;
      if (onlyIfEnded && !(await upstream.runEnded(threadId, runId))) return;
      statelessInBackground.delete(runId);
      await capture(threadId);
      if (!readErrors.has(threadId) && keptForReading.has(runId)) await upstream.deleteThread(threadId);
    } catch (error) {
      readErrors.set(`run:${runId}`, `its thread could not be found or read: ${(error as Error).message}`);
    }
  };

  const onExchange = (exchange: RecordedExchange): Promise<unknown> | undefined => {
    lastTraffic = Date.now();
    for (const header of ['x-api-key', 'authorization']) {
      const value = exchange.requestHeaders[header];
      for (const secret of [value].flat()) if (typeof secret === 'string' && secret !== '') secrets.add(secret.replace(/^Bearer\s+/i, ''));
    }
    const target = pathOf(exchange.target);
    const sighting = runSightingOf(exchange);
    if (sighting) {
      const known = sightings.get(sighting.runId);
      // Several readers of one run: the stream that showed the most, with the request that made it.
      if (!known || sighting.events.length > known.events.length)
        sightings.set(sighting.runId, {
          ...sighting,
          body: sighting.body ?? known?.body,
          stateless: sighting.stateless || (known?.stateless ?? false),
        });
    }
    if (exchange.status >= 300) return undefined;
    const ending = ENDS_A_RUN.exec(target);
    if (sighting?.stateless) {
      // A stateless run's thread is read as the run ends (and deleted, as the upstream would have); one made in the background once it has.
      if (exchange.rewritten) keptForReading.add(sighting.runId);
      if (ending) return withTimeout(readStateless(sighting.runId));
      statelessInBackground.add(sighting.runId);
      return undefined;
    }
    const threadId = threadOf(exchange.target) ?? sighting?.threadId;
    if (!threadId) return undefined;
    // A run made in the background, by the runs API or a protocol command (run.start, input.respond,
    // state.fork): its thread is read once the traffic pauses.
    if (
      exchange.method === 'POST' &&
      (/^\/threads\/[^/]+\/runs$/.test(target) || (sighting && /^\/threads\/[^/]+\/commands$/.test(target)))
    ) {
      unread.add(threadId);
      return undefined;
    }
    const endsRun =
      (ending !== null && exchange.method !== 'DELETE') ||
      (RUN_OF_THREAD.test(target) && (exchange.method === 'POST' || hasEnded(exchange)));
    if (!endsRun) return undefined;
    unread.delete(threadId);
    return withTimeout(capture(threadId));
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
      const at = pathOf(target);
      if (method === 'DELETE' && threadId && at === `/threads/${threadId}`) {
        unread.delete(threadId);
        await capture(threadId);
      } else if ((method === 'POST' && at === '/threads/prune') || (method === 'DELETE' && /^\/assistants\/[^/]+$/.test(at))) {
        await readUnread();
      }
    },
  });

  return {
    url: proxy.url,
    async stop() {
      clearInterval(idleReader);
      await proxy.close();
      await Promise.all(capturing.values());
      await Promise.all([...statelessInBackground].map((runId) => readStateless(runId)));
      // Read again only the threads with a run not yet seen to end (made in the background, or read while it ran).
      const threadsOfRuns = new Set([...sightings.values()].flatMap((sighting) => (sighting.threadId ? [sighting.threadId] : [])));
      await Promise.all([...threadsOfRuns].filter((threadId) => !allEnded(captures.get(threadId), sightings, threadId)).map(capture));
      try {
        graphs = await upstream.graphs();
      } catch {
        notes.push('the upstream did not answer at the end: its graphs are as they were when the recording began');
      }
      for (const graph of graphs)
        for (const missing of graph.missing) notes.push(`graph ${graph.graphId}: the upstream did not answer ${missing}`);
      const defaults = (graphId: string) => {
        const assistant = graphs.find((graph) => graph.graphId === graphId)?.assistant;
        return { config: (assistant?.config ?? {}) as Values, context: (assistant?.context ?? {}) as Values };
      };
      const recordings: ThreadRecording[] = [];
      // Threads in the order their first checkpoints were written: entries keep the order in
      // which the conversations were held, whenever each thread was read.
      for (const [threadId, captured] of [...captures].sort(([, a], [, b]) => compare(firstWritten(a), firstWritten(b)))) {
        const ofThread = new Map([...sightings].filter(([, sighting]) => sighting.threadId === threadId));
        const recording = recordThread(threadId, captured, ofThread, defaults);
        recordings.push(recording);
        notes.push(...recording.notes);
      }
      const recorded = new Set(recordings.flatMap((recording) => [...recording.recorded]));
      const lost: string[] = [];
      for (const [runId, sighting] of sightings) {
        if (recorded.has(runId)) continue;
        const on = sighting.threadId ? ` on thread ${sighting.threadId}` : sighting.stateless ? ' (stateless)' : '';
        const why =
          readErrors.get(`run:${runId}`) ??
          (sighting.threadId && readErrors.has(sighting.threadId)
            ? `its thread could not be read: ${readErrors.get(sighting.threadId)}`
            : sighting.threadId && captures.has(sighting.threadId)
              ? 'it had not ended when its thread was last read'
              : 'its thread was never read');
        lost.push(`run ${runId}${on} is not in the recording: ${why}`);
      }
      const { recording, leftOut } = servableRecording(
        { upstream: options.upstream.href, graphs, threads: recordings, secrets: [...secrets], recordedAt: new Date(), out: options.out },
        options.out,
      );
      lost.push(...leftOut);
      upstream.close();
      const file = whereToWrite(options.out, recording.runs, lost, notes);
      writeAtomically(file, recording.text);
      return { file, graphs: recording.graphs, runs: recording.runs, notes, lost };
    },
  };
}

/**
 * The file a recording goes to: `out`, unless the recording is incomplete and `out` holds a
 * recording already, which is kept (the new one goes beside it, `<name>.partial<ext>`). Replacing
 * a recording of more runs by one of fewer is said.
 */
function whereToWrite(out: string, runs: number, lost: readonly string[], notes: string[]): string {
  const previous = runsOfRecording(out);
  if (previous === undefined) return out;
  if (lost.length > 0) {
    const extension = path.extname(out);
    const partial = `${out.slice(0, out.length - extension.length)}.partial${extension}`;
    notes.push(`${out} is kept as it was (${previous} run(s)): this recording is incomplete, and is written to ${partial}`);
    return partial;
  }
  if (runs < previous) notes.push(`${out} held ${previous} run(s); the new recording, written there, holds ${runs}`);
  return out;
}

/** How many runs the recording in a file holds; undefined when there is no file or it is not one. */
function runsOfRecording(file: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const counts = [...text.matchAll(/^# \d+ graph\(s\), (\d+) run\(s\)\./gm)];
  return counts.length > 0 ? Number(counts[0]![1]) : 0;
}

/** Whether every run sighted on a thread has ended in its last read. */
function allEnded(captured: ThreadCapture | undefined, sightings: ReadonlyMap<string, RunSighting>, threadId: string): boolean {
  if (!captured) return false;
  const statuses = new Map(captured.runs.map((run) => [run.run_id, run.status]));
  for (const [runId, sighting] of sightings) {
    if (sighting.threadId !== threadId) continue;
    const status = statuses.get(runId);
    if (status === undefined || status === 'pending' || status === 'running') return false;
  }
  return true;
}

/** Whether an answer shows a run that has ended (a run read by its ID). */
function hasEnded(exchange: RecordedExchange): boolean {
  try {
    const run = JSON.parse(Buffer.concat(exchange.responseChunks.map((chunk) => chunk.data)).toString('utf8')) as Values;
    return typeof run.status === 'string' && run.status !== 'pending' && run.status !== 'running';
  } catch {
    return false;
  }
}

/** A read the client waits for, at most READ_TIMEOUT_MS: past that the answer ends, and the read goes on. */
function withTimeout(read: Promise<unknown>): Promise<unknown> {
  return Promise.race([read, new Promise((resolve) => setTimeout(resolve, READ_TIMEOUT_MS).unref())]);
}

const firstWritten = (captured: ThreadCapture) =>
  captured.root.reduce((first, state) => (state.created_at < first ? state.created_at : first), '\uffff');
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A thread's root history, the histories of the subgraphs its tasks name (at any depth), and its runs. */
async function readThread(upstream: Upstream, threadId: string): Promise<ThreadCapture> {
  const [root, runs] = await Promise.all([upstream.history(threadId), upstream.runs(threadId)]);
  const subgraphs = new Map<string, UpstreamState[]>();
  const pending = namespacesOf(root);
  while (pending.length > 0) {
    const namespace = pending.shift()!;
    if (subgraphs.has(namespace)) continue;
    const states = await upstream.history(threadId, namespace);
    subgraphs.set(namespace, states);
    pending.push(...namespacesOf(states));
  }
  return { root, subgraphs, runs };
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
