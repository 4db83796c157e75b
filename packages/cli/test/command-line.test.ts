// parseCommandLine checks a command line as run() does, without running it: it accepts every
// example of `agentplane <command> --help`, and refuses each usage error with the message run()
// exits 3 with.
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../src/command-line.js';
import { COMMANDS, commandName } from '../src/commands.js';
import { UsageError } from '../src/errors.js';
import { cli } from './support/cli.js';

/** The words of a help example, up to a shell redirection or pipe. */
const words = (example: string) =>
  example
    .split(/ [>|] /)[0]!
    .split(' ')
    .slice(1);

describe('parseCommandLine', () => {
  it.each(COMMANDS.flatMap((spec) => spec.examples.map((example) => [commandName(spec), example] as const)))(
    '%s: accepts the help example `%s`',
    (name, example) => {
      const parsed = parseCommandLine(words(example));
      expect(parsed.command).toBe(name);
      const spec = COMMANDS.find((c) => commandName(c) === name)!;
      expect(parsed.args.length).toBeGreaterThanOrEqual(spec.args.filter((a) => a.startsWith('<')).length);
    },
  );

  it('returns the arguments and flags', () => {
    expect(parseCommandLine(['revisions', 'billing-agent', '--status', 'DEPLOYED', '--limit', '5', '--json'])).toEqual({
      command: 'revisions',
      args: ['billing-agent'],
      flags: { status: 'DEPLOYED', limit: '5', json: true },
    });
    expect(parseCommandLine(['deploy', 'a', '--image', 'r/a:1', '--secret', 'A', '--secret', 'B']).flags.secret).toEqual(['A', 'B']);
  });

  it.each([
    [['deploi', 'x']],
    [['pool', 'python-pool']],
    [['deploy']],
    [['wait']],
    [['status', 'a', 'b']],
    [['pool', 'get', 'a', 'b']],
    [['deploy', 'x', '--imgae', 'r/a:1']],
    [['status', 'x', '--image', 'r/a:1']],
    [['revisions', 'x', '--offset', '20']],
    [['deploy', 'x', '--image']],
    [['deploy', 'x', '--image', 'r/a:1', '--json=yes']],
  ])('refuses %j as run() does (exit 3, the same error)', async (argv) => {
    const run = await cli(argv);
    expect(run.code).toBe(3);
    const refused = (() => {
      try {
        parseCommandLine(argv);
      } catch (error) {
        return error;
      }
      throw new Error(`parseCommandLine accepted ${JSON.stringify(argv)}`);
    })();
    expect(refused).toBeInstanceOf(UsageError);
    expect(run.stderr).toContain(`error: ${(refused as UsageError).message}\n`);
  });
});
