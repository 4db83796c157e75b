// Runs the CLI in-process, capturing what it writes.
import type { RunOptions } from '../../src/index.js';
import { run } from '../../src/index.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions extends Omit<RunOptions, 'stdout' | 'stderr'> {
  /** Called with each chunk written to stderr (to react to progress, such as sending SIGINT). */
  onStderr?: (chunk: string, all: string) => void;
}

export async function cli(argv: string[], options: CliOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const { onStderr, ...rest } = options;
  const code = await run(argv, {
    ...rest,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: {
      write: (chunk: string) => {
        stderr += chunk;
        onStderr?.(chunk, stderr);
      },
    },
  });
  return { code, stdout, stderr };
}
