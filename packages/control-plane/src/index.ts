// @agentplane/control-plane: the typed client of the agentplane control plane API.
export { createControlPlaneClient, type ControlPlaneClient, type ControlPlaneClientOptions, type ControlPlaneCredentials } from './client.js';
export {
  findDeploymentByName,
  iterateDeployments,
  iterateRevisions,
  type ListDeploymentsFilter,
  type ListRevisionsFilter,
  type PageOptions,
} from './pagination.js';
export {
  REVISION_FAILURE_STATUSES,
  REVISION_SUCCESS_STATUS,
  RevisionFailedError,
  RevisionTimeoutError,
  createDeploymentAndWait,
  isTerminalRevisionStatus,
  updateDeploymentAndWait,
  waitForRevision,
  type RevisionFailureStatus,
  type WaitForRevisionOptions,
  type WaitOptions,
} from './wait-for-revision.js';
export { ApiError, unwrap, type RetryOptions, type ValidationIssue } from '@agentplane/client-core';
// paths, components, operations, and every schema by its component name (Deployment,
// HTTPValidationError, ...), as openapi-typescript generates them.
export type * from './generated/openapi.js';
