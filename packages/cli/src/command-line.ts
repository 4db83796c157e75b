// Parsing an `agentplane` command line against the command table, without running anything:
// run() uses it before it runs a command, and tools that write command lines for others to run
// (the docs' code samples) use parseCommandLine to catch, where the line is written, what the CLI
// would refuse as a usage error (an unknown command or flag, a flag of another command, a missing
// or extra argument), worded as the CLI words it. What needs the environment or the control
// plane (credentials, a duration's syntax, a name's length) is left to the command.
import { parseArgs } from 'node:util';
import type { CommandSpec } from './commands.js';
import { COMMANDS, commandName } from './commands.js';
import { UsageError } from './errors.js';
import { ALL_FLAG_NAMES, commandHelp, mainHelp } from './help.js';
import type { FlagName } from './options.js';
import { FLAGS, parseArgsOptions } from './options.js';

export interface ParsedCommandLine {
  /** The command words, such as `deploy` or `pool get`. */
  command: string;
  /** The positional arguments after the command words. */
  args: string[];
  flags: FlagValuesRecord;
}

/** The command a command line (the arguments after `agentplane`) runs, or the UsageError run() would exit 3 with. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const parsed = parseCommand(argv);
  if (parsed.kind !== 'command')
    throw new UsageError(
      'the command line asks for help or the version, not a command',
      'write a command, such as `agentplane status <deployment>`.',
    );
  return { command: commandName(parsed.spec), args: parsed.args, flags: parsed.flags };
}

export type Parsed =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'command'; spec: CommandSpec; flags: FlagValuesRecord; args: string[] };

/** What a command line asks for: help, the version, or a command with its flags and arguments. */
export function parseCommand(argv: readonly string[]): Parsed {
  // First pass, with every flag of every command: find the command words among the positionals.
  // A flag error found here is explained with the help of the command it was typed for.
  const guess = COMMANDS.find((c) => argv.includes(c.words[0]!) && c.words.every((w) => argv.includes(w)));
  const loose = safeParse(argv, ALL_FLAG_NAMES as FlagName[], 'agentplane', guess ? commandName(guess) : undefined);
  const [first, second] = loose.positionals;
  if (first === undefined) {
    if (loose.values.help === true || argv.length === 0) return { kind: 'help', text: mainHelp() };
    if (loose.values.version === true) return { kind: 'version' };
    throw new UsageError('no command given', 'run `agentplane --help` for the commands.');
  }
  if (first === 'help') {
    const words = loose.positionals.slice(1);
    if (words.length === 0) return { kind: 'help', text: mainHelp() };
    const spec = findSpec(words);
    if (spec) return { kind: 'help', text: commandHelp(spec) };
    // `help pool`: the help of every command of the group.
    const group = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === words[0]);
    if (group.length > 0) return { kind: 'help', text: group.map(commandHelp).join('\n') };
    throw new UsageError(`unknown command ${JSON.stringify(words.join(' '))}`, 'run `agentplane --help` for the commands.');
  }
  const spec = findSpec(loose.positionals);
  if (!spec) {
    const group = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === first);
    if (group.length > 0) {
      throw new UsageError(
        `\`agentplane ${first}\` needs a subcommand${second ? `; ${JSON.stringify(second)} is not one` : ''}`,
        `use ${group.map((c) => `\`agentplane ${commandName(c)} ${c.args.join(' ')}\``).join(' or ')}.`,
      );
    }
    const suggestion = closest(first, [...new Set(COMMANDS.map((c) => c.words[0]!))]);
    throw new UsageError(
      `unknown command ${JSON.stringify(first)}`,
      `${suggestion ? `did you mean \`agentplane ${suggestion}\`? ` : ''}Run \`agentplane --help\` for the commands.`,
    );
  }
  if (loose.values.help === true) return { kind: 'help', text: commandHelp(spec) };

  // Second pass, strict, with the command's own flags.
  const name = commandName(spec);
  const { values, positionals } = safeParse(argv, spec.flags, name);
  const args = positionals.slice(spec.words.length);
  const required = spec.args.filter((a) => a.startsWith('<')).length;
  if (args.length < required || args.length > spec.args.length) {
    const missing = spec.args.slice(args.length).filter((a) => a.startsWith('<'));
    throw new UsageError(
      args.length < required
        ? `\`agentplane ${name}\` needs ${missing.join(' and ')}`
        : `too many arguments for \`agentplane ${name}\`: ${args
            .slice(spec.args.length)
            .map((a) => JSON.stringify(a))
            .join(' ')}`,
      `usage: agentplane ${name} ${spec.args.join(' ')} [flags]; see \`agentplane ${name} --help\`.`,
    );
  }
  return { kind: 'command', spec, flags: values, args };
}

function findSpec(words: readonly string[]): CommandSpec | undefined {
  return COMMANDS.find((c) => c.words.every((w, i) => words[i] === w));
}

type FlagValuesRecord = Record<string, string | boolean | string[] | undefined>;

function safeParse(
  argv: readonly string[],
  flags: readonly FlagName[],
  command: string,
  helpFor: string = command,
): { values: FlagValuesRecord; positionals: string[] } {
  const options = { ...parseArgsOptions(flags), ...(command === 'agentplane' ? { version: { type: 'boolean' as const } } : {}) };
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw parseError(error, flags, command, helpFor);
  }
}

function parseError(error: unknown, flags: readonly FlagName[], command: string, helpFor: string): UsageError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? '';
  const help = helpFor === 'agentplane' ? '`agentplane --help`' : `\`agentplane ${helpFor} --help\``;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const bare = flag.replace(/^-+/, '');
    if (command !== 'agentplane' && bare in FLAGS)
      return new UsageError(`${flag} does not apply to \`agentplane ${command}\``, `see ${help} for its flags.`);
    const suggestion = closest(bare, flags as string[]);
    return new UsageError(`unknown flag ${flag}`, `${suggestion ? `did you mean --${suggestion}? ` : ''}See ${help}.`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const spec = FLAGS[flag.replace(/^-+/, '') as FlagName] as { type: string; value?: string } | undefined;
    if (spec?.type === 'boolean') return new UsageError(`${flag} takes no value`, `write ${flag} alone; see ${help}.`);
    return new UsageError(`${flag} needs a value${spec?.value ? ` (${flag} <${spec.value}>)` : ''}`, `see ${help}.`);
  }
  return new UsageError(message, `see ${help}.`);
}

/** The closest candidate within an edit distance of 2, if any. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}
