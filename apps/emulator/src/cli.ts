// `agentplane-emulator`: starts the emulator from the command line and stops it cleanly on
// SIGINT/SIGTERM. Prints one line containing `ready` and both URLs once it listens.
// `agentplane-emulator record ...` is the recorder (recorder/record-command.ts).
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import type { CronsConfig, EmulatorConfig } from './config/config.js';
import { ConfigError, readConfigFile } from './config/config.js';
import type { RunningEmulator } from './emulator.js';
import { DEFAULTS, PortInUseError, startEmulator } from './emulator.js';
import { recordMain } from './recorder/record-command.js';
import { onStopRequest } from './shared/stop-signals.js';

export const USAGE = `Usage: agentplane-emulator [options]
       agentplane-emulator record --upstream <url> --out <file> [options]   (see record --help)

A stateful local emulator of the agentplane control plane and agent server APIs.

Options:
  --config <file>             YAML or JSON config: tenants, API keys, OAuth providers,
                              sandbox pools, revision outcomes, scripted graphs (see the README);
                              a recording made by \`record\` is one
  --db <path | :memory:>      SQLite file (default ${DEFAULTS.db})
  --control-plane-port <n>    default ${DEFAULTS.controlPlanePort} (0 picks a free port)
  --agent-server-port <n>     default ${DEFAULTS.agentServerPort} (0 picks a free port)
  --revision-step-ms <n>      how long each revision status lasts (default ${DEFAULTS.revisionStepMs})
  --time-scale <x>            every pause of a scripted graph lasts x times its scripted length:
                              0.1 replays a recording ten times faster, 0 at once (default 1)
  --cron-speed <n>            run cron schedules n times faster than the clock, for tests:
                              60 runs a \`* * * * *\` cron every second (default 1)
  --host <host>               default ${DEFAULTS.host}
  --detached                  keep running when its terminal closes or the process that
                              started it exits (a server a CI step starts in the background
                              with the bin itself); only SIGINT and SIGTERM stop it
  -h, --help                  show this help

Each option can also come from the environment (a flag wins): AGENTPLANE_EMULATOR_CONFIG,
AGENTPLANE_EMULATOR_DB, AGENTPLANE_EMULATOR_CONTROL_PLANE_PORT, AGENTPLANE_EMULATOR_AGENT_SERVER_PORT,
AGENTPLANE_EMULATOR_REVISION_STEP_MS, AGENTPLANE_EMULATOR_TIME_SCALE, AGENTPLANE_EMULATOR_CRON_SPEED,
AGENTPLANE_EMULATOR_HOST, AGENTPLANE_EMULATOR_DETACHED (1 or true).

Relative paths (--config, --db and its default) are read from the directory the command was
started in: AGENTPLANE_INIT_CWD when set (the repository's \`npm start\` sets it to where npm
was run), else npm's INIT_CWD (\`npx agentplane-emulator\` runs from the package's folder and
sets it to yours), else the current directory. The database is the only file it writes
(--db :memory: writes none).

Stopping: Ctrl-C, SIGINT, SIGTERM or SIGHUP, or the process that started it going away (npm,
when \`npx\` or \`npm run\` is stopped), stops it cleanly: open requests are ended, the database is
closed, and it prints "stopped". Through npx, Ctrl-C makes npm itself exit 130 (npm's way of
saying its command was interrupted); the emulator has stopped cleanly all the same.

Exit codes: 0 after a clean stop, 1 when it cannot start (a port in use, an unreadable database)
or cannot stop cleanly, 2 for a bad flag or config.
`;

/**
 * The directory relative paths are read from. `npm start` runs the emulator through turbo in its
 * own workspace folder, so the current directory there is apps/emulator; the root script passes
 * the directory the user ran npm in as AGENTPLANE_INIT_CWD (npm's own INIT_CWD is reset by the
 * nested `npm run`).
 */
function invocationDir(env: NodeJS.ProcessEnv = process.env): string {
  // npx runs the bin from the nearest package.json's folder, not the user's: INIT_CWD is theirs.
  return env.AGENTPLANE_INIT_CWD || env.INIT_CWD || process.cwd();
}

/** A time scale: a finite number >= 0. */
function timeScale(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const scale = Number(value);
  if (value.trim() === '' || !Number.isFinite(scale) || scale < 0)
    throw new ConfigError(`--time-scale must be a number >= 0, got ${JSON.stringify(value)}`);
  return scale;
}

function resolvePath(file: string, base: string): string {
  return file === ':memory:' ? file : path.resolve(base, file);
}

/** A flag's value, else its AGENTPLANE_EMULATOR_* variable (so `npm start` can be configured). */
function fromEnv(values: Record<string, unknown>, flag: string): string | undefined {
  const given = values[flag];
  if (typeof given === 'string') return given;
  const variable = process.env[`AGENTPLANE_EMULATOR_${flag.toUpperCase().replace(/-/g, '_')}`];
  return variable === '' ? undefined : variable;
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      db: { type: 'string' },
      'control-plane-port': { type: 'string' },
      'agent-server-port': { type: 'string' },
      'revision-step-ms': { type: 'string' },
      'time-scale': { type: 'string' },
      'cron-speed': { type: 'string' },
      host: { type: 'string' },
      detached: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

/**
 * Keeps V8's young generation at its initial size for the life of this process. By default V8
 * doubles it under sustained load up to 32 MB and never shrinks it when the load stops: the
 * emulator's resident memory went from 59 MB idle to 128 MB after a minute of ordinary load and
 * stayed there. With a growth factor of 1 it settles near its idle size once idle, at no
 * measurable cost in throughput (the memory benchmark, apps/bench/src/memory.bench.js, shows
 * both). The flag is read each time V8 would grow the space, so setting it at start-up works;
 * only the CLI sets it, as it owns its process (createEmulator leaves its host's process alone).
 */
function boundYoungGeneration(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

/** `--cron-speed` over the config's `crons` (its other keys kept). */
function cronsOption(config: EmulatorConfig | undefined, speed: number | undefined): { crons?: CronsConfig } {
  return speed === undefined ? {} : { crons: { ...config?.crons, speed } };
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'record') return recordMain(argv.slice(1), (file) => resolvePath(file, invocationDir()));
  boundYoungGeneration();
  let values: ReturnType<typeof parseFlags>;
  try {
    values = parseFlags(argv);
  } catch (error) {
    process.stderr.write(`agentplane-emulator: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const number = (flag: string, value: string | undefined, min: number): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new ConfigError(`--${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
    return n;
  };

  let emulator: RunningEmulator;
  try {
    const base = invocationDir();
    const configFile = fromEnv(values, 'config');
    const config = configFile ? readConfigFile(resolvePath(configFile, base)) : undefined;
    emulator = await startEmulator({
      config,
      db: resolvePath(fromEnv(values, 'db') ?? DEFAULTS.db, base),
      controlPlanePort: number('control-plane-port', fromEnv(values, 'control-plane-port'), 0),
      agentServerPort: number('agent-server-port', fromEnv(values, 'agent-server-port'), 0),
      revisionStepMs: number('revision-step-ms', fromEnv(values, 'revision-step-ms'), 1),
      timeScale: timeScale(fromEnv(values, 'time-scale')),
      ...cronsOption(config, number('cron-speed', fromEnv(values, 'cron-speed'), 1)),
      host: fromEnv(values, 'host'),
    });
  } catch (error) {
    process.stderr.write(`agentplane-emulator: ${startFailure(error as Error)}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }

  const running = emulator;
  const detached = values.detached === true || /^(1|true)$/i.test(process.env.AGENTPLANE_EMULATOR_DETACHED ?? '');
  const stopped = new Promise<number>((resolve) => {
    // Before the ready line: whoever reads it may signal at once (a write to a pipe is synchronous).
    onStopRequest(
      (reason) => {
        process.stdout.write(`agentplane-emulator: ${reason}, stopping\n`);
        running.close().then(
          () => {
            process.stdout.write('agentplane-emulator: stopped\n');
            resolve(0);
          },
          (error: Error) => {
            process.stderr.write(`agentplane-emulator: could not stop cleanly: ${error.message}\n`);
            resolve(1);
          },
        );
      },
      { detached },
    );
  });
  if (emulator.defaultApiKey)
    process.stdout.write(`agentplane-emulator: no tenants configured; tenant "default" uses API key ${emulator.defaultApiKey}\n`);
  process.stdout.write(`agentplane-emulator ready: control plane ${emulator.controlPlaneUrl} · agent server ${emulator.agentServerUrl}\n`);
  return stopped;
}

/** Why the emulator could not start, said in the terms of the command line: the flag or variable to change. */
function startFailure(error: Error): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof PortInUseError) {
    const flag = error.option === 'agentServerPort' ? 'agent-server-port' : 'control-plane-port';
    return `cannot start: port ${error.port} on ${error.host} is in use (another emulator, or another server, listens there): choose another with --${flag} or AGENTPLANE_EMULATOR_${flag.toUpperCase().replace(/-/g, '_')}, or 0 to pick a free one`;
  }
  return `cannot start: ${error.message}`;
}
