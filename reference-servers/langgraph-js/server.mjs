// Starts the real LangGraph JS agent server (`langgraphjs dev`, the command its users run) with
// this folder's graph, for the tests and the bench that compare our thread API with it.
//
// The packages are pinned by this folder's own package.json and lockfile, not by the repository's:
// they are big (about 190 packages), only these comparisons need them, and their peer ranges are
// not the repository's concern. `startLangGraphServer` installs them on first use (`npm ci`, about
// 15 s), under a lock, so that several test files starting servers at once install once.
//
// Each server gets its own project folder in the temp directory (a langgraph.json naming this
// folder's graph): the server keeps its threads in `.langgraph_api/` next to its config, so two
// servers started from the same folder would share, and overwrite, one store.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, 'node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs');

/** Whether node_modules holds exactly the versions package.json pins. */
function installed() {
  const { devDependencies } = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
  return Object.entries(devDependencies).every(([name, version]) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(here, 'node_modules', name, 'package.json'), 'utf8')).version === version;
    } catch {
      return false;
    }
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Installs the pinned packages unless they are there; one installer at a time (a mkdir lock). */
export async function ensureInstalled({ log = () => {} } = {}) {
  const lock = path.join(here, '.install-lock');
  for (;;) {
    if (installed()) return;
    try {
      fs.mkdirSync(lock);
    } catch {
      // Another process installs; a lock older than 5 minutes belongs to one that died.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) fs.rmSync(lock, { recursive: true, force: true });
      await sleep(500);
      continue;
    }
    try {
      if (installed()) return;
      log('installing the LangGraph JS server (npm ci in reference-servers/langgraph-js)');
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: here, stdio: ['ignore', 'ignore', 'pipe'] });
      return;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/**
 * Starts a server on `port` (callers pick a free one) with an empty store and waits until it answers.
 * @param {{port: number, timeoutMs?: number, log?: (line: string) => void}} options
 * @returns {Promise<{url: string, pid: number, startupMs: number, stop: () => Promise<void>}>}
 */
export async function startLangGraphServer({ port, timeoutMs = 120_000, log }) {
  await ensureInstalled({ log });
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'langgraph-js-'));
  fs.writeFileSync(
    path.join(project, 'langgraph.json'),
    JSON.stringify({
      node_version: '20',
      dependencies: [here],
      graphs: { agent: `./${path.relative(project, path.join(here, 'src/graph.js'))}:graph` },
    }),
  );
  fs.writeFileSync(path.join(project, '.gitignore'), '.langgraph_api\n');
  const url = `http://127.0.0.1:${port}`;
  const output = fs.openSync(path.join(project, 'server.log'), 'w');
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      cli,
      'dev',
      '--config',
      path.join(project, 'langgraph.json'),
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--no-browser',
      '--no-reload',
    ],
    {
      cwd: project,
      // Its own process group: the CLI starts tsx, which starts the server, which starts esbuild;
      // stopping the group stops them all.
      detached: true,
      stdio: ['ignore', output, output],
      env: {
        ...process.env,
        BROWSER: 'none',
        LANGGRAPH_CLI_NO_ANALYTICS: '1',
        LANGSMITH_TRACING: 'false',
        LANGCHAIN_TRACING_V2: 'false',
        NO_COLOR: '1',
      },
    },
  );
  fs.closeSync(output);
  const stop = async () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    for (let waited = 0; waited < 10_000; waited += 100) {
      try {
        process.kill(-child.pid, 0);
      } catch {
        fs.rmSync(project, { recursive: true, force: true });
        return;
      }
      await sleep(100);
    }
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone in the meantime
    }
    fs.rmSync(project, { recursive: true, force: true });
  };
  // A busy port does not stop the CLI (it logs EADDRINUSE and stays up), so readiness is an
  // answer from /ok, not a live process.
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/ok`)).ok) return { url, pid: child.pid, startupMs: Date.now() - started, stop };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  const logTail = fs.readFileSync(path.join(project, 'server.log'), 'utf8').slice(-2000);
  const why = child.exitCode === null ? `did not answer on ${url} within ${timeoutMs} ms` : `exited with ${child.exitCode}`;
  await stop();
  throw new Error(`the LangGraph JS server ${why}; its log ends with:\n${logTail}`);
}

// `node server.mjs [port]`: a server to try requests against by hand (on the LangGraph CLI's
// default port, 2024, unless given), until Ctrl-C.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startLangGraphServer({ port: Number(process.argv[2] ?? 2024), log: console.log });
  console.log(`LangGraph JS server ready at ${server.url} after ${server.startupMs} ms (Ctrl-C stops it)`);
  process.once('SIGINT', () => server.stop().then(() => process.exit(0)));
}
