// @agentplane/agent-server: the typed client of the agentplane agent server thread API.
export { createAgentServerClient, isSafeToRepeat, type AgentServerClient, type AgentServerClientOptions } from './client.js';
export { iterateHistory, iterateThreads, type PageOptions } from './pagination.js';
export { ApiError, unwrap, type RetryOptions, type ValidationIssue } from '@agentplane/client-core';
// paths, components, operations, and every schema by its component name (Deployment,
// HTTPValidationError, ...), as openapi-typescript generates them.
export type * from './generated/openapi.js';
