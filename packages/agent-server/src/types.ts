// Named aliases of the generated types, for the schemas users touch. Every alias points into the
// generated file: nothing here restates a schema.
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths };

type Schemas = components['schemas'];

export type Thread = Schemas['Thread'];
export type ThreadStatus = Schemas['ThreadStatus'];
export type ThreadMetadata = Schemas['ThreadMetadata'];
export type ThreadConfig = Schemas['ThreadConfig'];
export type ThreadValues = Schemas['ThreadValues'];
export type ThreadCreate = Schemas['ThreadCreate'];
export type IfExists = Schemas['IfExists'];
export type Superstep = Schemas['Superstep'];
export type SuperstepUpdate = Schemas['SuperstepUpdate'];
export type ThreadSearch = Schemas['ThreadSearch'];
export type ThreadSortBy = Schemas['ThreadSortBy'];
export type SortOrder = Schemas['SortOrder'];
export type ThreadCopy = Schemas['ThreadCopy'];
export type ThreadState = Schemas['ThreadState'];
export type ThreadTask = Schemas['ThreadTask'];
export type Interrupt = Schemas['Interrupt'];
export type Checkpoint = Schemas['Checkpoint'];
export type CheckpointMetadata = Schemas['CheckpointMetadata'];
export type CheckpointSource = Schemas['CheckpointSource'];
export type CheckpointRef = Schemas['CheckpointRef'];
export type CheckpointConfig = Schemas['CheckpointConfig'];
export type ThreadHistoryQuery = Schemas['ThreadHistoryQuery'];
export type Message = Schemas['Message'];
export type HumanMessage = Schemas['HumanMessage'];
export type AiMessage = Schemas['AiMessage'];
export type ToolCall = Schemas['ToolCall'];
export type InvalidToolCall = Schemas['InvalidToolCall'];
export type UsageMetadata = Schemas['UsageMetadata'];
export type ErrorDetail = Schemas['ErrorDetail'];
export type HTTPValidationError = Schemas['HTTPValidationError'];
export type ValidationError = Schemas['ValidationError'];
