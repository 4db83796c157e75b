// @agentplane/openapi-toolkit: the repository's one OpenAPI toolkit (private). Test helpers are
// in `@agentplane/openapi-toolkit/testing`.
export { API_NAMES, REDOCLY_CONFIG, REPO_ROOT, apiPaths, type ApiPaths } from './apis.js';
export {
  DOCUMENT_ID,
  HTTP_METHODS,
  anchorRefs,
  escapePointer,
  getPointer,
  listOperations,
  loadBundle,
  resolveRef,
  unescapePointer,
  type HttpMethod,
  type ListedOperation,
  type OpenApiDocument,
} from './document.js';
export { freePort } from './free-port.js';
export { createValidator, type SchemaValidator, type ValidationResult } from './schema-validator.js';
export { SERVER_TYPEGEN_OPTIONS, TYPEGEN_OPTIONS, generateTypes } from './typegen.js';
