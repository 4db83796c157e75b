// The CLI without a process: run(argv, options) parses the arguments, runs the command against
// the injected environment (env, stdout, stderr, fetch, TTY, signal) and returns the exit code.
// The bin is a thin wrapper that passes the real process in.
import { ApiError } from '@agentplane/control-plane';
import { parseCommand } from './command-line.js';
import { commandName } from './commands.js';
import type { RunOptions } from './context.js';
import { Context } from './context.js';
import { CliError, EXIT, fromApiError, fromNetworkError, InterruptedError } from './errors.js';
import { emitJson, errorJson, printError } from './output.js';
import { VERSION } from './version.js';

export type { RunOptions } from './context.js';

export async function run(argv: readonly string[], options: RunOptions = {}): Promise<number> {
  const stdout = options.stdout ?? { write: () => undefined };
  const stderr = options.stderr ?? { write: () => undefined };
  let ctx: Context | undefined;
  let json = argv.includes('--json');
  try {
    const parsed = parseCommand(argv);
    if (parsed.kind === 'help') {
      stdout.write(parsed.text);
      return EXIT.OK;
    }
    if (parsed.kind === 'version') {
      stdout.write(`${VERSION}\n`);
      return EXIT.OK;
    }
    json = parsed.flags.json === true;
    ctx = new Context(commandName(parsed.spec), parsed.flags, parsed.args, options);
    return await parsed.spec.run(ctx);
  } catch (thrown) {
    const error = toCliError(thrown, ctx, options.signal);
    printError({ stderr }, error);
    if (json) emitJson({ stdout } as Context, { error: errorJson(error) });
    return error.exitCode;
  }
}

function toCliError(thrown: unknown, ctx: Context | undefined, signal: AbortSignal | undefined): CliError {
  if (thrown instanceof CliError) return thrown;
  if (signal?.aborted) {
    const reason = signal.reason;
    return new CliError(
      reason instanceof InterruptedError ? reason.exitCode : EXIT.INTERRUPTED,
      'interrupted before anything was changed',
      'run the command again when you are ready.',
    );
  }
  const baseUrl = ctx ? safeBaseUrl(ctx) : '';
  if (thrown instanceof ApiError) return fromApiError(thrown, baseUrl);
  if (thrown instanceof TypeError && /fetch failed|network/i.test(thrown.message)) return fromNetworkError(thrown, baseUrl);
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new CliError(
    EXIT.FAILED,
    `unexpected error: ${message}`,
    'this is likely a bug in agentplane; please report it with the command you ran.',
  );
}

function safeBaseUrl(ctx: Context): string {
  try {
    return ctx.baseUrl;
  } catch {
    return '(no base URL)';
  }
}
