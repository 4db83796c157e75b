// Help texts, generated from the command table and the flag list.
import type { CommandSpec } from './commands.js';
import { COMMANDS, commandName } from './commands.js';
import { COMMON_FLAGS, FLAGS, flagHelp, indented } from './options.js';
import { VERSION } from './version.js';

export const EXIT_CODE_HELP = `Exit codes:
  0    deployed (deploy, wait); done (the other commands)
  1    the revision failed (its status and a hint are printed); or the control plane could not
       be reached or answered an unexpected error; or (conformance) a check failed
  2    timed out (--timeout) before the revision finished; it goes on on the server
  3    usage error: a bad flag or argument, missing or refused credentials (401), or a request
       the control plane refused as invalid (422, naming the flag and why)
  4    not found: the deployment, revision, pool or provider does not exist; or (rollback)
       there is no revision to roll back to
  130  interrupted (Ctrl-C) while waiting; nothing was cancelled or rolled back (conformance:
       after deleting what the run created)`;

const ENV_HELP = `Environment:
  AGENTPLANE_BASE_URL, AGENTPLANE_API_KEY, AGENTPLANE_TENANT_ID, AGENTPLANE_BEARER_TOKEN
       stand in for --base-url, --api-key, --tenant-id, --bearer-token (a flag wins)
  CI   when set (and not "false"), progress is one plain line per status change even on a
       terminal; otherwise a terminal gets a live status line`;

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => usageLine(c).length));
  const commands = COMMANDS.map((c) => indented(`  ${usageLine(c).padEnd(width)}  `, c.summary)).join('\n');
  return `agentplane ${VERSION}: deploy agent servers from CI/CD and wait for them.

Usage: agentplane <command> [arguments] [flags]

Commands:
${commands}

Flags of every command:
${flagHelp(COMMON_FLAGS)}

${ENV_HELP}

${EXIT_CODE_HELP}

Output: results go to stdout (one JSON document with --json); progress, errors and hints go to
stderr.

Run \`agentplane <command> --help\` for a command's flags and examples.
`;
}

export function commandHelp(spec: CommandSpec): string {
  const own = spec.flags.filter((f) => !(COMMON_FLAGS as readonly string[]).includes(f));
  const sections = [
    `Usage: agentplane ${usageLine(spec)} [flags]`,
    spec.summary,
    ...spec.description.map((p) => indented('', p)),
    own.length > 0 ? `Flags:\n${flagHelp(own)}` : '',
    // Only those the command takes: the parser refuses the others for it.
    `Connection and output flags:\n${flagHelp(COMMON_FLAGS.filter((f) => spec.flags.includes(f)))}`,
    `Examples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}`,
    EXIT_CODE_HELP,
  ];
  return `${sections.filter(Boolean).join('\n\n')}\n`;
}

function usageLine(spec: CommandSpec): string {
  return [commandName(spec), ...spec.args].join(' ');
}

/** Every flag name, for "did you mean" suggestions. */
export const ALL_FLAG_NAMES = Object.keys(FLAGS);
