// The agent server API: one handler per operationId of spec/agent-server, gathered from the rooms
// that own each resource (threads/, runs/, assistants/, store-items/, crons/, system/, protocol/). The
// handler map's type (handler-map.ts) comes from the spec, so a missing or an extra operation is a
// compile error here. This is the top of agent-server/: it may import every room, and none imports it.
import { assistantHandlers } from './assistants/assistant-handlers.js';
import type { AssistantStore } from './assistants/assistant-store.js';
import { cronHandlers } from './crons/cron-handlers.js';
import type { CronScheduler } from './crons/cron-scheduler.js';
import type { CronStore } from './crons/cron-store.js';
import type { GraphRegistry } from './graphs/scripted-graph.js';
import type { AgentServerHandlers } from './handler-map.js';
import type { ThreadProtocol } from './protocol/thread-protocol.js';
import type { RunEngine } from './runs/run-engine.js';
import { runHandlers } from './runs/run-handlers.js';
import type { RunStore } from './runs/run-store.js';
import type { RunStreamOptions } from './runs/run-stream-handlers.js';
import { runStreamHandlers } from './runs/run-stream-handlers.js';
import { storeItemHandlers } from './store-items/item-handlers.js';
import type { ItemStore } from './store-items/item-store.js';
import { systemHandlers } from './system/system-handlers.js';
import type { SubgraphCheckpoints } from './threads/subgraph-checkpoints.js';
import type { ThreadHandlerOptions } from './threads/thread-handlers.js';
import { threadHandlers } from './threads/thread-handlers.js';
import type { ThreadStore } from './threads/thread-store.js';

export interface AgentServerParts {
  threads: ThreadStore;
  /** The checkpoints subgraph nodes wrote, by namespace. */
  subgraphCheckpoints: SubgraphCheckpoints;
  /** The assistants, the graphs' default ones included (made at start-up). */
  assistants: AssistantStore;
  /** The scripted graphs by graph_id (the config's `graphs`, or the default echo graph). */
  graphs: GraphRegistry;
  runs: RunStore;
  engine: RunEngine;
  /** The store's items (the deployment's long-term memory). */
  items: ItemStore;
  crons: CronStore;
  scheduler: CronScheduler;
  /** The thread-centric protocol: its commands and event streams. */
  protocol: ThreadProtocol;
}

export type AgentServerOptions = ThreadHandlerOptions & RunStreamOptions;

export function agentServerHandlers(parts: AgentServerParts, options: AgentServerOptions = {}): AgentServerHandlers {
  const now = options.now ?? Date.now;
  const handlers: AgentServerHandlers = {
    ...threadHandlers(parts.threads, parts.subgraphCheckpoints, parts.graphs, parts.engine, options),
    ...runHandlers(parts.engine, parts.runs, parts.threads),
    ...runStreamHandlers(parts.engine, parts.runs, parts.threads, options),
    ...assistantHandlers(parts.assistants, parts.threads, parts.graphs, parts.engine, options),
    ...systemHandlers(),
    ...storeItemHandlers(parts.items),
    ...cronHandlers(parts.crons, parts.scheduler, parts, options),
    ...parts.protocol.handlers({ heartbeatMs: options.heartbeatMs }),
  };
  return expiringFirst(handlers, () => {
    parts.threads.purgeExpired(now());
    parts.items.purgeExpired(now());
    parts.scheduler.runDue();
  });
}

/**
 * Every handler runs after the threads and store items whose time to live ran out are gone
 * (ThreadTtl, StoreItemTtl), and after the runs of the crons due by the clock are made (decision E23).
 */
function expiringFirst(handlers: AgentServerHandlers, purge: () => void): AgentServerHandlers {
  const wrapped: Record<string, unknown> = {};
  for (const [operationId, handler] of Object.entries(handlers) as [string, (request: never) => unknown][]) {
    wrapped[operationId] = (request: never) => {
      purge();
      return handler(request);
    };
  }
  return wrapped as AgentServerHandlers;
}
