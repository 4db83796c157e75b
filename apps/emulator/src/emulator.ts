// The emulator: one SQLite database and, for each API, the HTTP layer compiled from that API's
// spec with the handlers of its semantics. `createEmulator` serves both APIs in process, as
// fetch functions (no port, no socket); `startEmulator` also listens on TCP ports.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { AssistantStore } from './agent-server/assistants/assistant-store.js';
import { CronScheduler } from './agent-server/crons/cron-scheduler.js';
import { CronStore } from './agent-server/crons/cron-store.js';
import type { GraphDefinition } from './agent-server/graphs/graph-types.js';
import { GraphRegistry } from './agent-server/graphs/scripted-graph.js';
import type { AgentServerPrincipal } from './agent-server/handler-map.js';
import { agentServerHandlers } from './agent-server/handlers.js';
import { ProtocolEventStore } from './agent-server/protocol/protocol-event-store.js';
import type { ThreadProtocol } from './agent-server/protocol/thread-protocol.js';
import { createThreadProtocol } from './agent-server/protocol/thread-protocol.js';
import { RunEngine } from './agent-server/runs/run-engine.js';
import { RunStore } from './agent-server/runs/run-store.js';
import { ItemStore } from './agent-server/store-items/item-store.js';
import { SubgraphCheckpoints } from './agent-server/threads/subgraph-checkpoints.js';
import { ThreadStore } from './agent-server/threads/thread-store.js';
import type { CorsConfig, CronsConfig, EmulatorConfig } from './config/config.js';
import { checkConfig, isCheckedConfig } from './config/config.js';
import { loadContract } from './contract/api-contract.js';
import { ControlPlaneStore } from './control-plane/control-plane-store.js';
import { controlPlaneHandlers } from './control-plane/handlers.js';
import type { Tenant } from './control-plane/tenants.js';
import { controlPlaneSchemes, resolveTenants, seedTenantRecords } from './control-plane/tenants.js';
import type { ApiHandler } from './http/api-handler.js';
import { createApiHandler } from './http/api-handler.js';
import { createAuthenticator } from './http/authenticator.js';
import { withCors } from './http/cors.js';
import type { FetchFunction } from './http/fetch-function.js';
import { createFetchHandler } from './http/fetch-handler.js';
import { runtimeHandlers } from './http/handler-types.js';
import { createNodeServer } from './http/node-server.js';
import { CommitGroup } from './store/commit-group.js';
import { openDatabase } from './store/database.js';
import { startWalCheckpointer } from './store/wal-checkpointer.js';

export const DEFAULTS = {
  db: path.join('.agentplane', 'emulator.db'),
  controlPlanePort: 8124,
  agentServerPort: 8123,
  host: '127.0.0.1',
  revisionStepMs: 2000,
} as const;

/** What an in-process emulator is made of. */
export interface EmulatorOptions {
  /** SQLite file, or `:memory:` (the default of createEmulator). */
  db?: string;
  config?: EmulatorConfig;
  /**
   * The scripted graphs runs execute, by graph_id, in the config's shape (`graphs`), where a reply
   * may also be a function of the model call; they replace the config's. None: one echo graph, `agent`.
   */
  graphs?: Record<string, GraphDefinition>;
  /** Which browser origins may call both APIs, in the config's shape (`cors`); replaces the config's. None: any. */
  cors?: CorsConfig;
  /** How long each revision status lasts. */
  revisionStepMs?: number;
  /** Check every answer against the spec (default: on unless NODE_ENV is `production`). */
  validateResponses?: boolean;
  /** Where contract violations and internal errors are reported (default: stderr). */
  onError?: (message: string) => void;
  /**
   * Where what the emulator tells its user about their own setup goes, such as a run's webhook
   * that could not be delivered (default: stderr). Not an error of the emulator's.
   */
  onNotice?: (message: string) => void;
  /**
   * The clock of the emulator: revision lifecycles, timestamps, times to live and cron schedules
   * (tests move it). Every agent server request first makes the runs of the crons due by it, so
   * moving it and making a request runs them at once (decision E23).
   */
  now?: () => number;
  /**
   * Every pause of a scripted graph (a step's `delay_ms`, a reply chunk's, a recording's timing)
   * lasts this many times its scripted length: 0.1 replays a recording ten times faster, 0 at once
   * (default 1: as scripted).
   */
  timeScale?: number;
  /** How crons run, in the config's shape (`crons`); replaces the config's. */
  crons?: CronsConfig;
  /** How run streams keep alive and how long they stay rejoinable (decision E21). */
  streams?: {
    /** A comment line after this long without an event (default 10 s). */
    heartbeatMs?: number;
    /** How long an ended resumable run's events stay readable with Last-Event-ID (default 15 minutes). */
    keepResumableMs?: number;
    /**
     * How long a run a protocol command starts (`run.start`, `input.respond`, `state.fork`) waits
     * before it executes, so that the streams its client opens on the answer see it from its first
     * event (default 250 ms; decision E28).
     */
    protocolRunDelayMs?: number;
  };
}

/** One API served in process. */
export interface InProcessApi {
  /** A base URL for clients; the fetch function does not look at its host. */
  url: string;
  /** A fetch implementation that answers from the emulator, with no network. */
  fetch: FetchFunction;
}

export interface Emulator {
  controlPlane: InProcessApi;
  agentServer: InProcessApi;
  /** The API key of the default tenant, when no config defines tenants. */
  defaultApiKey?: string;
  /** Closes the database. */
  close(): void;
}

/**
 * A fresh emulator of both APIs in this process, on an in-memory database unless `db` says
 * otherwise: hand `agentServer.fetch` (or `controlPlane.fetch`) and its `url` to any client that
 * takes a fetch implementation.
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const core = createCore({ ...options, db: options.db ?? ':memory:' });
  const inProcess = (handle: ApiHandler, url: string): InProcessApi => ({ url, fetch: createFetchHandler(handle) });
  return {
    controlPlane: inProcess(core.controlPlane, 'http://control-plane.emulator.invalid'),
    agentServer: inProcess(core.agentServer, 'http://agent-server.emulator.invalid'),
    ...(core.defaultApiKey ? { defaultApiKey: core.defaultApiKey } : {}),
    close: core.close,
  };
}

export interface StartOptions extends EmulatorOptions {
  /** 0 picks a free port. */
  controlPlanePort?: number;
  agentServerPort?: number;
  host?: string;
}

export interface RunningEmulator {
  controlPlaneUrl: string;
  agentServerUrl: string;
  /** The API key of the default tenant, when no config defines tenants. */
  defaultApiKey?: string;
  close(): Promise<void>;
}

/** The emulator on TCP ports (the CLI's). `db` defaults to `.agentplane/emulator.db`. */
export async function startEmulator(options: StartOptions = {}): Promise<RunningEmulator> {
  const core = createCore({ ...options, db: options.db ?? DEFAULTS.db });
  const controlPlane = createNodeServer(core.controlPlane);
  const agentServer = createNodeServer(core.agentServer);
  const host = options.host ?? DEFAULTS.host;
  try {
    const [controlPlaneUrl, agentServerUrl] = await Promise.all([
      listen(controlPlane, options.controlPlanePort ?? DEFAULTS.controlPlanePort, host, 'controlPlanePort'),
      listen(agentServer, options.agentServerPort ?? DEFAULTS.agentServerPort, host, 'agentServerPort'),
    ]);
    let closed: Promise<void> | undefined;
    return {
      controlPlaneUrl,
      agentServerUrl,
      ...(core.defaultApiKey ? { defaultApiKey: core.defaultApiKey } : {}),
      close() {
        closed ??= Promise.all([stop(controlPlane), stop(agentServer)]).then(core.close);
        return closed;
      },
    };
  } catch (error) {
    await Promise.all([stop(controlPlane), stop(agentServer)]);
    core.close();
    throw error;
  }
}

/**
 * In-process graphs as the config's schema can check them: a reply that is a function is checked
 * when it answers (replies.ts), so here it stands in as the plainest reply.
 */
function checkableGraphs(graphs: Readonly<Record<string, GraphDefinition>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(graphs).map(([id, graph]) => [
      id,
      graph.replies ? { ...graph, replies: graph.replies.map((reply) => (typeof reply === 'function' ? { text: '' } : reply)) } : graph,
    ]),
  );
}

interface Core {
  /** Commits what is pending and closes the database. */
  close(): void;
  controlPlane: ApiHandler;
  agentServer: ApiHandler;
  defaultApiKey: string | undefined;
}

/** The database and both APIs' handlers, with no transport. */
function createCore(options: EmulatorOptions & { db: string }): Core {
  // One validation for every way a config arrives: a file was checked when it was read; an object
  // handed in, and in-process graphs, are checked here the same way, before anything is opened.
  const config =
    options.config && !isCheckedConfig(options.config) ? checkConfig(options.config, 'the config option') : (options.config ?? {});
  if (options.graphs) checkConfig({ graphs: checkableGraphs(options.graphs) }, 'the graphs option');
  const graphs = options.graphs ?? config.graphs;
  const cors = options.cors ? checkConfig({ cors: options.cors }, 'the cors option').cors! : config.cors;
  const corsOrigins = cors?.origins ?? '*';
  const cronsConfig = options.crons ? checkConfig({ crons: options.crons }, 'the crons option').crons! : config.crons;
  const db = openDatabase(options.db, { statementJournalsInMemory: true });
  try {
    const onError = options.onError ?? ((message: string) => process.stderr.write(`[agentplane-emulator] ${message}\n`));
    const validateResponses = options.validateResponses ?? process.env.NODE_ENV !== 'production';
    const commits = new CommitGroup(db, onError);
    const common = { validateResponses, onContractViolation: onError, commits };

    const controlPlaneContract = loadContract('control-plane');
    const controlPlaneStore = new ControlPlaneStore(db, commits);
    const { tenants, generatedKey } = resolveTenants(config, db);
    seedTenantRecords(tenants, controlPlaneStore, controlPlaneContract);
    const controlPlane = createApiHandler<Tenant>({
      ...common,
      contract: controlPlaneContract,
      handlers: runtimeHandlers(
        controlPlaneHandlers(controlPlaneStore, {
          revisionStepMs: options.revisionStepMs ?? DEFAULTS.revisionStepMs,
          revisionOutcomes: config.revision_outcomes ?? [],
          now: options.now,
        }),
      ),
      authenticator: createAuthenticator<Tenant>({
        schemes: controlPlaneSchemes(tenants),
        anonymous: { id: '' },
        requireCredentials: true,
      }),
    });

    const agentServerContract = loadContract('agent-server');
    const threads = new ThreadStore(db, commits);
    const subgraphCheckpoints = new SubgraphCheckpoints(db, commits);
    const runs = new RunStore(db, commits, threads.items);
    const graphRegistry = new GraphRegistry(graphs);
    const assistants = new AssistantStore(db, commits, graphRegistry);
    const items = new ItemStore(db, commits, { now: options.now });
    const crons = new CronStore(db, commits);
    // The protocol tells the engine's runs as its events; the engine is made first, so it asks through this.
    let protocol: ThreadProtocol | undefined;
    const engine = new RunEngine({
      threads,
      subgraphCheckpoints,
      items,
      runs,
      graphs: graphRegistry,
      assistants,
      now: options.now ?? Date.now,
      onError,
      onNotice: options.onNotice ?? ((message: string) => process.stderr.write(`[agentplane-emulator] ${message}\n`)),
      keepResumableEventsMs: options.streams?.keepResumableMs,
      timeScale: options.timeScale,
      observe: (run) => protocol?.observe(run),
    });
    protocol = createThreadProtocol({
      threads,
      subgraphCheckpoints,
      runs,
      engine,
      store: new ProtocolEventStore(db, commits),
      contract: agentServerContract,
      now: options.now ?? Date.now,
      onError,
      runDelayMs: options.streams?.protocolRunDelayMs,
    });
    // Each graph's default assistant, and none (nor its runs) of a graph no longer served (decision E19).
    commits.transaction(() => {
      for (const removed of assistants.ensureDefaults(new Date((options.now ?? Date.now)()).toISOString())) engine.forgetAssistant(removed);
    });
    const scheduler = new CronScheduler({
      crons,
      engine,
      now: options.now ?? Date.now,
      speed: cronsConfig?.speed ?? 1,
      onNotice: options.onNotice ?? ((message: string) => process.stderr.write(`[agentplane-emulator] ${message}\n`)),
    });
    const agentKeys = new Set(config.agent_server?.api_keys ?? []);
    const agentServer = createApiHandler<AgentServerPrincipal>({
      ...common,
      contract: agentServerContract,
      handlers: runtimeHandlers(
        agentServerHandlers(
          { threads, subgraphCheckpoints, assistants, graphs: graphRegistry, runs, engine, items, crons, scheduler, protocol },
          { now: options.now, heartbeatMs: options.streams?.heartbeatMs },
        ),
      ),
      authenticator: createAuthenticator<AgentServerPrincipal>({
        schemes: {
          ApiKeyAuth: {
            carrier: 'X-Api-Key header',
            resolve: (key) => (agentKeys.has(key) ? { anonymous: false } : undefined),
            invalidMessage: 'Invalid API key.',
          },
        },
        anonymous: { anonymous: true },
        requireCredentials: agentKeys.size > 0,
      }),
    });
    // Startup writes (the tenants' records, the default assistants) are committed before anything
    // is served; then the runs a previous process left in flight go on.
    commits.commit();
    engine.recover();
    scheduler.start();
    const checkpointer =
      options.db === ':memory:' ? undefined : startWalCheckpointer(db, options.db, (task) => commits.betweenGroups(task), onError);
    const close = () => {
      scheduler.close();
      engine.close();
      commits.commit();
      checkpointer?.stop();
      db.close();
    };
    return {
      close,
      // Both APIs answer browsers the same way; CORS stays outside the HTTP layer (decision E20).
      controlPlane: withCors(controlPlane, controlPlaneContract, corsOrigins),
      agentServer: withCors(agentServer, agentServerContract, corsOrigins),
      defaultApiKey: generatedKey,
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** A port another process listens on: which option chose it, so that the message can say what to change. */
export class PortInUseError extends Error {
  constructor(
    readonly option: 'controlPlanePort' | 'agentServerPort',
    readonly port: number,
    readonly host: string,
  ) {
    super(
      `port ${port} on ${host} is in use (another emulator, or another server, listens there): choose another with the ${option} option, or 0 to pick a free one`,
    );
  }
}

function listen(server: http.Server, port: number, host: string, option: PortInUseError['option']): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(option, port, host) : error),
    );
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shownHost}:${address.port}`);
    });
  });
}

function stop(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
