// @agentplane/openapi-toolkit: the repository's one OpenAPI toolkit (private). Test helpers are
// in `@agentplane/openapi-toolkit/testing`.
export { API_NAMES, type ApiPaths, apiPackage, apiPaths, REDOCLY_CONFIG, REPO_ROOT } from './apis.js';
export { type ApiChangeSummary, renderApiChanges } from './compatibility/changelog.js';
export { type CompatibilityReport, checkCompatibility, formatChange, formatReport } from './compatibility/gate.js';
export type { ClassifiedChange, Impact } from './compatibility/policy.js';
export { pageLimits, type RetryPolicy, renderContractModule, retryPolicy, retryRules } from './contract-module.js';
export {
  anchorRefs,
  DOCUMENT_ID,
  escapePointer,
  getPointer,
  HTTP_METHODS,
  type HttpMethod,
  type ListedOperation,
  listOperations,
  loadBundle,
  type OpenApiDocument,
  resolveRef,
  unescapePointer,
} from './document.js';
export { freePort } from './free-port.js';
export { type PackedPackage, packPackages } from './release/artifacts.js';
export { publicPackages, type WorkspacePackage } from './release/workspace.js';
export { createValidator, type SchemaValidator, type ValidationResult } from './schema-validator.js';
export type { ParameterTextType, ServerOperation } from './server-operation.js';
export { generateTypes, SERVER_TYPEGEN_OPTIONS, TYPEGEN_OPTIONS } from './typegen.js';
