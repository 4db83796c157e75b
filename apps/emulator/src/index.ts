// @agentplane/emulator: start the emulator from code (tests, fixtures) as the CLI does.

export { stampCheckpoints } from './agent-server/handlers.js';
export { planSupersteps } from './agent-server/supersteps.js';
export { ConfigError, checkConfig, type EmulatorConfig, readConfigFile } from './config.js';
export { DEFAULTS, type EmulatorOptions, type RunningEmulator, startEmulator } from './emulator.js';
