// @agentplane/emulator: start the emulator from code (tests, fixtures) as the CLI does.
export { DEFAULTS, startEmulator, type EmulatorOptions, type RunningEmulator } from './emulator.js';
export { checkConfig, readConfigFile, ConfigError, type EmulatorConfig } from './config.js';
export { stampCheckpoints } from './agent-server/handlers.js';
export { planSupersteps } from './agent-server/supersteps.js';
