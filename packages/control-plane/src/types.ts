// Named aliases of the generated types, for the schemas users touch. Every alias points into the
// generated file: nothing here restates a schema.
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths };

type Schemas = components['schemas'];

export type Deployment = Schemas['Deployment'];
export type DeploymentCreate = Schemas['DeploymentCreate'];
export type DeploymentUpdate = Schemas['DeploymentUpdate'];
export type DeploymentSource = Schemas['DeploymentSource'];
export type DeploymentType = Schemas['DeploymentType'];
export type SourceConfig = Schemas['SourceConfig'];
export type SourceConfigInput = Schemas['SourceConfigInput'];
export type SourceRevisionConfig = Schemas['SourceRevisionConfig'];
export type SourceRevisionConfigInput = Schemas['SourceRevisionConfigInput'];
export type ResourceSpec = Schemas['ResourceSpec'];
export type ResourceSpecInput = Schemas['ResourceSpecInput'];
export type Secret = Schemas['Secret'];
export type SecretName = Schemas['SecretName'];
export type Revision = Schemas['Revision'];
export type RevisionStatus = Schemas['RevisionStatus'];
export type OAuthProvider = Schemas['OAuthProvider'];
export type SandboxPool = Schemas['SandboxPool'];
export type SandboxPoolNotFoundError = Schemas['SandboxPoolNotFoundError'];
export type ErrorDetail = Schemas['ErrorDetail'];
export type HTTPValidationError = Schemas['HTTPValidationError'];
export type ValidationError = Schemas['ValidationError'];
