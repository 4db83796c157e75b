// @agentplane/cli: the `agentplane` command, and run() to drive it from code or tests.

export { EXIT, type ExitCode, InterruptedError } from './errors.js';
export { formatDuration, parseDuration } from './format.js';
export { type RunOptions, run } from './run.js';
