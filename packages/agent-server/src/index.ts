// @agentplane/agent-server: the typed client of the agentplane agent server API.

export { ApiError, type ErrorBody, isApiError, type RetryOptions, unwrap, type ValidationIssue } from '@agentplane/client-core';
export { type AgentServerClient, type AgentServerClientOptions, createAgentServerClient, isSafeToRepeat } from './client.js';
// paths, components, operations, and every schema by its component name (Deployment,
// HTTPValidationError, ...), as openapi-typescript generates them.
export type * from './generated/openapi.js';
export { iterateHistory, iterateThreads, type PageOptions } from './pagination.js';
export {
  type ConnectThreadOptions,
  connectThread,
  filterSelects,
  ProtocolCommandError,
  type ProtocolMethodName,
  type ProtocolParams,
  type ProtocolResult,
  type ProtocolSubscription,
  protocolChannel,
  sendCommand,
  streamThreadEvents,
  type ThreadEventsOptions,
  type ThreadSocket,
  type WebSocketConstructor,
  type WebSocketLike,
} from './protocol.js';
export { type JoinStreamOptions, joinStream, type StreamOptions, streamRun, streamStatelessRun } from './streaming.js';
