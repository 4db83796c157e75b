// The result of a command on stdout: a JSON document with --json (and nothing else on stdout),
// else text for humans.
import type { Context } from './context.js';
import type { CliError } from './errors.js';

/** Writes the command's one JSON document. */
export function emitJson(ctx: Context, document: Record<string, unknown>): void {
  ctx.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

/** The `error` member of a JSON document. */
export function errorJson(error: CliError): Record<string, unknown> {
  return {
    exit_code: error.exitCode,
    message: error.message,
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.httpStatus ? { http_status: error.httpStatus } : {}),
  };
}

/** Prints an error and its hint to stderr. */
export function printError(ctx: Pick<Context, 'stderr'>, error: Pick<CliError, 'message' | 'hint'>): void {
  ctx.stderr.write(`error: ${error.message}\n`);
  if (error.hint) ctx.stderr.write(`hint: ${error.hint}\n`);
}
