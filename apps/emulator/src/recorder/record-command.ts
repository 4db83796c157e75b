// `agentplane-emulator record`: the recorder from the command line. It listens like the emulator
// (one line with `ready` once it does), passes every request to the upstream agent server, and
// when it is stopped (SIGINT or SIGTERM) writes the recording and exits.
import { parseArgs } from 'node:util';
import { onStopRequest } from '../shared/stop-signals.js';
import { startRecorder, UpstreamUnreachable } from './recorder.js';

export const RECORD_USAGE = `Usage: agentplane-emulator record --upstream <url> --out <file> [options]

Records what an agent server does, as a config the emulator replays: a proxy in front of the
upstream server (a \`langgraph dev\`, or a deployment). Point your app or tests at it; every
request goes to the upstream and every answer comes back unchanged, streams as they arrive. When
it is stopped (Ctrl-C, SIGINT, SIGTERM or SIGHUP, or the process that started it going away, such
as npm when \`npx\` is stopped), it writes <file>: every graph the upstream serves and
the runs it saw, in the format of the emulator's graphs config. Replay it with
\`agentplane-emulator --config <file>\`.

Options:
  --upstream <url>            the agent server to record (required)
  --out <file>                where the recording is written when the recorder stops (required)
  --agent-server-port <n>     where the recorder listens (default 8123; 0 picks a free port)
  --host <host>               default 127.0.0.1
  --wait-for-upstream <s>     how long to wait for the upstream to answer at start (default 60)
  --detached                  keep recording when its terminal closes or the process that started
                              it exits; only SIGINT and SIGTERM stop it
  --upstream-api-key <key>    sent to the upstream as X-Api-Key on every request; default from
                              AGENTPLANE_UPSTREAM_API_KEY, LANGGRAPH_API_KEY, LANGSMITH_API_KEY or
                              LANGCHAIN_API_KEY (a local \`langgraph dev\` needs none). No key is
                              ever written to <file>.
  -h, --help                  show this help

Each run is read from the upstream as it ends, so the upstream may stop before the recorder.
What the recorder could not read (a run that had not ended when the upstream went away, a thread
gone before it was read) it says on stderr, and the recording is incomplete: it exits 1, and an
incomplete recording never replaces an existing <file> (it is written beside it, as
<name>.partial<ext>).

Exit codes: 0 once a complete recording is written; 1 when the recording is incomplete, the
upstream does not answer in time (or the port is taken) or the file cannot be written; 2 for a bad
flag.
`;

const KEY_VARIABLES = ['AGENTPLANE_UPSTREAM_API_KEY', 'LANGGRAPH_API_KEY', 'LANGSMITH_API_KEY', 'LANGCHAIN_API_KEY'];

export async function recordMain(
  argv: string[],
  resolvePath: (file: string) => string,
  write: { out: (text: string) => void; err: (text: string) => void } = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  },
): Promise<number> {
  let values: {
    upstream?: string;
    out?: string;
    'agent-server-port'?: string;
    host?: string;
    'upstream-api-key'?: string;
    'wait-for-upstream'?: string;
    detached?: boolean;
    help?: boolean;
  };
  try {
    values = parseArgs({
      args: argv,
      options: {
        upstream: { type: 'string' },
        out: { type: 'string' },
        'agent-server-port': { type: 'string' },
        host: { type: 'string' },
        'upstream-api-key': { type: 'string' },
        'wait-for-upstream': { type: 'string' },
        detached: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    write.err(`agentplane-emulator record: ${(error as Error).message}\n\n${RECORD_USAGE}`);
    return 2;
  }
  if (values.help) {
    write.out(RECORD_USAGE);
    return 0;
  }
  const usage = (message: string) => {
    write.err(`agentplane-emulator record: ${message}\n\n${RECORD_USAGE}`);
    return 2;
  };
  if (!values.upstream) return usage('--upstream is required');
  if (!values.out) return usage('--out is required');
  let upstream: URL;
  try {
    upstream = new URL(values.upstream);
    if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    return usage(`--upstream must be an http(s) URL, got ${JSON.stringify(values.upstream)}`);
  }
  const port = Number(values['agent-server-port'] ?? 8123);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return usage(`--agent-server-port must be a port number, got ${JSON.stringify(values['agent-server-port'])}`);
  const wait = Number(values['wait-for-upstream'] ?? 60);
  if (!Number.isFinite(wait) || wait < 0)
    return usage(`--wait-for-upstream must be a number of seconds, got ${JSON.stringify(values['wait-for-upstream'])}`);
  const apiKey = values['upstream-api-key'] ?? KEY_VARIABLES.map((name) => process.env[name]).find((value) => value);
  const out = resolvePath(values.out);

  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  try {
    recorder = await startRecorder({ upstream, out, apiKey, port, host: values.host ?? '127.0.0.1', upstreamWaitMs: wait * 1000 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    write.err(
      `agentplane-emulator record: ${
        error instanceof UpstreamUnreachable
          ? error.message
          : code === 'EADDRINUSE'
            ? `cannot start: port ${port} on ${values.host ?? '127.0.0.1'} is in use (another emulator, or another server, listens there): choose another with --agent-server-port, or 0 to pick a free one`
            : `cannot start: ${(error as Error).message}`
      }\n`,
    );
    return 1;
  }
  const stopped = new Promise<number>((resolve) => {
    // Before the ready line: whoever reads it may signal at once (a write to a pipe is synchronous).
    onStopRequest(
      (reason) => {
        write.out(`agentplane-emulator record: ${reason}, writing the recording\n`);
        recorder.stop().then(
          (summary) => {
            write.out(`agentplane-emulator record: wrote ${summary.file}: ${summary.graphs} graph(s), ${summary.runs} run(s)\n`);
            for (const note of summary.notes) write.err(`agentplane-emulator record: ${note}\n`);
            for (const line of summary.lost) write.err(`agentplane-emulator record: not recorded: ${line}\n`);
            if (summary.lost.length > 0)
              write.err(
                `agentplane-emulator record: the recording is incomplete: ${summary.lost.length} thing(s) above could not be recorded\n`,
              );
            resolve(summary.lost.length > 0 ? 1 : 0);
          },
          (error: Error) => {
            write.err(`agentplane-emulator record: cannot write the recording: ${error.message}\n`);
            resolve(1);
          },
        );
      },
      { detached: values.detached === true },
    );
  });
  write.out(`agentplane-emulator record ready: agent server ${recorder.url} → ${upstream.origin}; recording to ${out}\n`);
  return stopped;
}
