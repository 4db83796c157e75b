// @agentplane/cli: the `agentplane` command, and run() to drive it from code or tests.

export { type ParsedCommandLine, parseCommandLine } from './command-line.js';
export { EXIT, type ExitCode, InterruptedError } from './errors.js';
export { formatDuration, parseDuration } from './format.js';
export { type ApiRequest, commandForRequest, type RequestCommand, type RequestContext } from './request-commands.js';
export { type RunOptions, run } from './run.js';
