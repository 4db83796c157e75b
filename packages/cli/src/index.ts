// @agentplane/cli: the `agentplane` command, and run() to drive it from code or tests.
export { run, type RunOptions } from './run.js';
export { EXIT, InterruptedError, type ExitCode } from './errors.js';
export { parseDuration, formatDuration } from './format.js';
