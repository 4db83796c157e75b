// @agentplane/control-plane: the typed client of the agentplane control plane API.

export { ApiError, type ErrorBody, isApiError, type RetryOptions, unwrap, type ValidationIssue } from '@agentplane/client-core';
export {
  type ControlPlaneClient,
  type ControlPlaneClientOptions,
  type ControlPlaneCredentials,
  createControlPlaneClient,
} from './client.js';
// paths, components, operations, and every schema by its component name (Deployment,
// HTTPValidationError, ...), as openapi-typescript generates them.
export type * from './generated/openapi.js';
export {
  findDeploymentByName,
  iterateDeployments,
  iterateRevisions,
  type ListDeploymentsFilter,
  type ListRevisionsFilter,
  type PageOptions,
} from './pagination.js';
export { type ReadRevisionLogOptions, type RevisionLogFilter, type RevisionLogRead, readRevisionLog } from './revision-logs.js';
export {
  createDeploymentAndWait,
  isTerminalRevisionStatus,
  REVISION_FAILURE_STATUSES,
  REVISION_SUCCESS_STATUS,
  RevisionFailedError,
  type RevisionFailureStatus,
  RevisionTimeoutError,
  updateDeploymentAndWait,
  type WaitForRevisionOptions,
  type WaitOptions,
  waitForRevision,
} from './wait-for-revision.js';
