// @agentplane/emulator: both agentplane APIs from code, as the CLI serves them.
//   createEmulator(): in process, as fetch functions (no port); one per test is cheap.
//   startEmulator():  on TCP ports.

export type { GraphDefinition, ReplyContext, ReplyEntry, ReplyFunction } from './agent-server/graphs/graph-types.js';
export { ConfigError, checkConfig, type EmulatorConfig, readConfigFile } from './config/config.js';
export {
  createEmulator,
  DEFAULTS,
  type Emulator,
  type EmulatorOptions,
  type InProcessApi,
  type RunningEmulator,
  type StartOptions,
  startEmulator,
} from './emulator.js';
export type { FetchFunction } from './http/fetch-function.js';
