// The type of the agent server's handler map: one handler per operationId of spec/agent-server,
// each typed from the generated operations. Every handler group (threads/, runs/, assistants/, ...)
// declares its handlers against it, and handlers.ts gathers them; this file imports none of them,
// so the groups depend on the map's type and never on the file that assembles them.
import type { operations as ClientOperations } from '@agentplane/agent-server';
import type { api } from '../generated/agent-server/operations.js';
import type { operations as ServerOperations } from '../generated/agent-server/server-types.js';
import type { HandlerMap } from '../http/handler-types.js';

export type AgentServerPrincipal = { anonymous: boolean };

export type AgentServerHandlers = HandlerMap<typeof api, ServerOperations, ClientOperations, AgentServerPrincipal>;
