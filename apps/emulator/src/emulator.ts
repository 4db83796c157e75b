// Starts the emulator: one SQLite file, and one HTTP server per API whose routes, validation and
// response checks come from that API's bundled spec.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type AgentServerPrincipal, agentServerHandlers } from './agent-server/handlers.js';
import { ThreadStore } from './agent-server/thread-store.js';
import type { EmulatorConfig } from './config.js';
import { ControlPlaneStore } from './control-plane/control-plane-store.js';
import { controlPlaneHandlers } from './control-plane/handlers.js';
import { controlPlaneSchemes, resolveTenants, seedTenantRecords, type Tenant } from './control-plane/tenants.js';
import { createApiServer } from './http/api-server.js';
import { createAuthenticator } from './http/authenticator.js';
import { compileApi } from './spec/compile-operations.js';
import { loadSpec } from './spec/load-specs.js';
import { type Db, openDatabase } from './store/database.js';

export const DEFAULTS = {
  db: path.join('.agentplane', 'emulator.db'),
  controlPlanePort: 8124,
  agentServerPort: 8123,
  host: '127.0.0.1',
  revisionStepMs: 2000,
  maxBodyBytes: 10 * 1024 * 1024,
} as const;

export interface EmulatorOptions {
  /** SQLite file, or `:memory:`. */
  db?: string;
  config?: EmulatorConfig;
  /** 0 picks a free port. */
  controlPlanePort?: number;
  agentServerPort?: number;
  host?: string;
  /** How long each revision status lasts. */
  revisionStepMs?: number;
  /** Check every answer against the spec (default: on unless NODE_ENV is `production`). */
  validateResponses?: boolean;
  maxBodyBytes?: number;
  /** Where contract violations and internal errors are reported (default: stderr). */
  onError?: (message: string) => void;
  /** The clock of the revision lifecycle (tests move it). */
  now?: () => number;
}

export interface RunningEmulator {
  controlPlaneUrl: string;
  agentServerUrl: string;
  /** The API key of the default tenant, when no config defines tenants. */
  defaultApiKey?: string;
  db: Db;
  threads: ThreadStore;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const config = options.config ?? {};
  const db = openDatabase(options.db ?? DEFAULTS.db);
  try {
    const onError = options.onError ?? ((message: string) => process.stderr.write(`[agentplane-emulator] ${message}\n`));
    const validateResponses = options.validateResponses ?? process.env.NODE_ENV !== 'production';
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;

    const controlPlaneApi = compileApi(loadSpec('control-plane'));
    const controlPlaneStore = new ControlPlaneStore(db);
    const { tenants, generatedKey } = resolveTenants(config, db);
    seedTenantRecords(tenants, controlPlaneStore, controlPlaneApi);
    const controlPlane = createApiServer<Tenant>({
      api: controlPlaneApi,
      handlers: controlPlaneHandlers(controlPlaneStore, {
        revisionStepMs: options.revisionStepMs ?? DEFAULTS.revisionStepMs,
        revisionOutcomes: config.revision_outcomes ?? [],
        now: options.now,
      }),
      authenticator: createAuthenticator<Tenant>({
        schemes: controlPlaneSchemes(tenants),
        anonymous: { id: '' },
        requireCredentials: true,
      }),
      validateResponses,
      maxBodyBytes,
      onContractViolation: onError,
    });

    const agentServerApi = compileApi(loadSpec('agent-server'));
    const threads = new ThreadStore(db);
    const agentKeys = new Set(config.agent_server?.api_keys ?? []);
    const agentServer = createApiServer<AgentServerPrincipal>({
      api: agentServerApi,
      handlers: agentServerHandlers(threads, agentServerApi),
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
      validateResponses,
      maxBodyBytes,
      onContractViolation: onError,
    });

    const host = options.host ?? DEFAULTS.host;
    const [controlPlaneUrl, agentServerUrl] = await Promise.all([
      listen(controlPlane, options.controlPlanePort ?? DEFAULTS.controlPlanePort, host),
      listen(agentServer, options.agentServerPort ?? DEFAULTS.agentServerPort, host),
    ]).catch(async (error) => {
      await Promise.all([stop(controlPlane), stop(agentServer)]);
      throw error;
    });

    let closed: Promise<void> | undefined;
    return {
      controlPlaneUrl,
      agentServerUrl,
      ...(generatedKey ? { defaultApiKey: generatedKey } : {}),
      db,
      threads,
      close() {
        closed ??= Promise.all([stop(controlPlane), stop(agentServer)]).then(() => void db.close());
        return closed;
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

function listen(server: http.Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
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
