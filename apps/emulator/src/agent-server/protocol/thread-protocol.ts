// The thread-centric protocol of the agent server (decisions A26, E28), assembled: its events of
// each thread (thread-events.ts, kept by protocol-event-store.ts), the projection that tells each
// run of a joined thread as events (run-projection.ts), the commands (protocol-commands.ts), and
// the three operations: commands over HTTP, the event stream over SSE, and both over a WebSocket.
import type { ApiContract } from '../../contract/api-contract.js';
import { canonicalUuid } from '../../shared/ids.js';
import type { AgentServerHandlers } from '../handler-map.js';
import type { RunEngine } from '../runs/run-engine.js';
import type { RunObserver } from '../runs/run-observer.js';
import type { RunRow, RunStore } from '../runs/run-store.js';
import type { SubgraphCheckpoints } from '../threads/subgraph-checkpoints.js';
import type { ThreadStore } from '../threads/thread-store.js';
import { protocolEventStream, seqOfEventId } from './event-stream.js';
import { graphOf, ProtocolCommands, pendingInterrupts } from './protocol-commands.js';
import type { ProtocolEventStore } from './protocol-event-store.js';
import { protocolSocket } from './protocol-socket.js';
import { RunProjection } from './run-projection.js';
import { ThreadEvents } from './thread-events.js';

export interface ThreadProtocolParts {
  threads: ThreadStore;
  subgraphCheckpoints: SubgraphCheckpoints;
  runs: RunStore;
  engine: RunEngine;
  store: ProtocolEventStore;
  contract: ApiContract;
  /** The clock of the events' timestamps. */
  now: () => number;
  /** Where a fault of the emulator's own is reported (a WebSocket command that failed inside it). */
  onError: (message: string) => void;
  /** How long a run a command starts waits before it executes (default 250 ms; decision E28). */
  runDelayMs?: number;
}

export interface ThreadProtocolOptions {
  /** A comment line after this long without an event on a stream (decision A18's 5 s). */
  heartbeatMs?: number;
}

type ProtocolHandlers = Pick<AgentServerHandlers, 'sendThreadCommand' | 'streamThreadEvents' | 'connectThreadEvents'>;

export interface ThreadProtocol {
  /** The observer of a run whose thread tells its runs (the run engine's `observe`). */
  observe(run: RunRow): RunObserver | undefined;
  handlers(options?: ThreadProtocolOptions): ProtocolHandlers;
}

const HEARTBEAT_MS = 5_000;
/** The wait before a run a command starts executes: time for the client's streams to arrive. */
export const RUN_DELAY_MS = 250;

export function createThreadProtocol(parts: ThreadProtocolParts): ThreadProtocol {
  const events = new ThreadEvents(parts.store, parts.engine.events, parts.now);
  const commands = new ProtocolCommands({ ...parts, events, runDelayMs: parts.runDelayMs ?? RUN_DELAY_MS });
  const socketOperation = parts.contract.operations.find((operation) => operation.operationId === 'connectThreadEvents')!;

  return {
    observe(run) {
      if (!events.tells(run.thread_id)) return undefined;
      return new RunProjection(
        (draft, namesRun) => events.append(run.thread_id, run.run_id, draft, namesRun),
        graphOf(run),
        answeredBy(run, parts.threads),
        events.takeAnnounced(run.run_id),
      );
    },

    handlers(options = {}) {
      const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
      return {
        sendThreadCommand({ path, body, headers }) {
          return { status: 200, body: commands.answer(canonicalUuid(path.thread_id), body, headers) };
        },

        streamThreadEvents({ path, body, headers }) {
          const threadId = canonicalUuid(path.thread_id);
          // An existing thread joins now: its next runs are told, whichever API starts them.
          parts.store.join(threadId);
          const lastEventId = headers['last-event-id'];
          const since = body.since ?? seqOfEventId(Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
          return {
            status: 200,
            headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
            stream: protocolEventStream({ events, threadId, selection: body, since, heartbeatMs }),
          };
        },

        connectThreadEvents({ path, headers, upgradable }) {
          if (!upgradable)
            return {
              status: 426,
              headers: { Upgrade: 'websocket' },
              body: {
                detail:
                  'This path speaks the protocol over a WebSocket (GET with Upgrade websocket); over HTTP, POST it for server-sent events. In process there is no WebSocket.',
              },
            };
          const threadId = canonicalUuid(path.thread_id);
          parts.store.join(threadId);
          return {
            status: 101,
            socket: protocolSocket({
              threadId,
              headers,
              commands,
              events,
              checkCommand: (message) => socketOperation.checkSocketMessage(101, 'client', message),
              onError: parts.onError,
            }),
          };
        },
      };
    },
  };
}

/**
 * The interrupts a run answers, when it resumes: those its resume names by ID, or every one its
 * thread waits at (a resume value answers them all).
 */
function answeredBy(run: RunRow, threads: ThreadStore): string[] {
  const command = run.kwargs.command as { resume?: unknown } | null | undefined;
  if (!command || !Object.hasOwn(command, 'resume')) return [];
  const waiting = pendingInterrupts(threads, run.thread_id);
  const resume = command.resume;
  if (resume !== null && typeof resume === 'object' && !Array.isArray(resume)) {
    const named = Object.keys(resume).filter((id) => waiting.includes(id));
    if (named.length === Object.keys(resume).length && named.length > 0) return named;
  }
  return waiting;
}
