// Starts the real LangGraph JS agent server (`langgraphjs dev`, the command its users run) with
// this folder's graph, or with scripted graphs (src/scripted.js: the emulator's `graphs` config run
// by LangGraph itself over a fake chat model), or with other graphs such as the reference shapes of
// src/shapes/, for the tests and the bench that compare with it.
//
// The packages are pinned by this folder's own package.json and lockfile, not by the repository's:
// they are big (about 190 packages), only these comparisons need them, and their peer ranges are
// not the repository's concern. `startLangGraphServer` installs them on first use (`npm ci`, about
// 15 s), under a lock, so that several test files starting servers at once install once.
//
// Each server gets its own project folder in the temp directory (a langgraph.json naming this
// folder's graph, or a generated module per scripted graph): the server keeps its threads in
// `.langgraph_api/` next to its config, so two servers started from the same folder would share,
// and overwrite, one store.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { SHAPE_ASSISTANT_CONFIGS, SHAPE_GRAPHS } from './src/shapes/index.js';

// The reference graphs of several shapes (src/shapes/), as `rawGraphs` and `assistantConfigs`.
export { SHAPE_ASSISTANT_CONFIGS, SHAPE_GRAPHS };

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, 'node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs');
const GROUP_LEADER = path.join(here, 'group-leader.mjs');

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
 * The langgraph.json `graphs` of a project folder. Without `graphs`: this folder's `agent` graph
 * (src/graph.js, no model). With `graphs`: one small module per scripted graph, importing the
 * factory of src/scripted.js with its config, so that the server registers it under its id.
 * `rawGraphs` adds graphs by langgraph.json spec (`path:export`), such as the real prebuilt.
 */
/** This folder's `agent` graph (src/graph.js) as a `rawGraphs` entry, to serve it beside scripted graphs. */
export const REFERENCE_AGENT_GRAPH = `${path.join(here, 'src/graph.js')}:graph`;

function writeGraphs(project, graphs, givenRawGraphs, normaliseScript) {
  const spec = (file, symbol) => `./${path.relative(project, file)}:${symbol}`;
  // An absolute module path is made relative to the project folder, as langgraph.json wants it.
  const rawGraphs = Object.fromEntries(
    Object.entries(givenRawGraphs).map(([graphId, given]) => {
      const at = given.lastIndexOf(':');
      return [graphId, path.isAbsolute(given) && at > 0 ? spec(given.slice(0, at), given.slice(at + 1)) : given];
    }),
  );
  if (graphs == null) return { agent: spec(path.join(here, 'src/graph.js'), 'graph'), ...rawGraphs };
  const scripted = pathToFileURL(path.join(here, 'src/scripted.js')).href;
  // The server resolves @langchain/langgraph from its first graph file (a loader hook, so that graphs
  // and server share one copy): the generated modules need this folder's packages beside them.
  fs.symlinkSync(path.join(here, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  const entries = Object.entries(graphs).map(([graphId, config], i) => {
    // Checked here, so that a bad config is an error of this call, not a server that fails to start.
    normaliseScript(graphId, config);
    const file = path.join(project, `graph-${i}.mjs`);
    fs.writeFileSync(
      file,
      `// Generated by server.mjs: the scripted graph ${JSON.stringify(graphId)}.\n` +
        `import { createScriptedGraph } from ${JSON.stringify(scripted)};\n` +
        `export const graph = createScriptedGraph(${JSON.stringify(graphId)}, ${JSON.stringify(config)});\n`,
    );
    return [graphId, spec(file, 'graph')];
  });
  return { ...Object.fromEntries(entries), ...rawGraphs };
}

/** Reads a graphs config file (JSON, or YAML by its extension): its `graphs` object, or the whole file. */
export async function readGraphsFile(file) {
  const text = fs.readFileSync(file, 'utf8');
  let config;
  if (/\.ya?ml$/i.test(file)) {
    const yaml = await import('yaml').catch(() => {
      throw new Error(`reading ${file} needs the yaml package (npm ci in reference-servers/langgraph-js installs it)`);
    });
    config = yaml.parse(text);
  } else {
    config = JSON.parse(text);
  }
  return config?.graphs ?? config;
}

/**
 * Starts a server on `port` (callers pick a free one) with an empty store and waits until it answers.
 * @param {{port: number, graphs?: Record<string, object>, rawGraphs?: Record<string, string>, assistantConfigs?: Record<string, object>, timeoutMs?: number, log?: (line: string) => void}} options
 * @returns {Promise<{url: string, pid: number, startupMs: number, project: string, stop: () => Promise<void>}>}
 */
export async function startLangGraphServer({ port, graphs, rawGraphs = {}, assistantConfigs, timeoutMs = 120_000, log }) {
  await ensureInstalled({ log });
  const { normaliseScript } = await import('./src/scripted.js');
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'langgraph-js-'));
  let graphSpecs;
  try {
    graphSpecs = writeGraphs(project, graphs, rawGraphs, normaliseScript);
  } catch (error) {
    fs.rmSync(project, { recursive: true, force: true });
    throw error;
  }
  // The server gives its default assistants a config only from LANGGRAPH_CONFIG, which a project
  // sets in langgraph.json's `env` (as the server's own tests do).
  const env = assistantConfigs == null ? {} : { LANGGRAPH_CONFIG: JSON.stringify(assistantConfigs) };
  fs.writeFileSync(
    path.join(project, 'langgraph.json'),
    JSON.stringify({ node_version: '20', dependencies: [here], graphs: graphSpecs, env }),
  );
  fs.writeFileSync(path.join(project, '.gitignore'), '.langgraph_api\n');
  const url = `http://127.0.0.1:${port}`;
  const output = fs.openSync(path.join(project, 'server.log'), 'w');
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      GROUP_LEADER,
      process.execPath,
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
      // stopping the group stops them all. The group's leader ends it should this process die
      // without stopping it: its stdin, a pipe from here, then closes (group-leader.mjs).
      detached: true,
      stdio: ['pipe', output, output],
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
      if ((await fetch(`${url}/ok`)).ok) return { url, pid: child.pid, startupMs: Date.now() - started, project, stop };
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

// `node server.mjs [port] [--graphs file.yaml|file.json] [--shapes]`: a server to try requests
// against by hand (on the LangGraph CLI's default port, 2024, unless given), until Ctrl-C. With
// --graphs, the file's scripted graphs (its `graphs` object, as in the emulator's config) instead
// of `agent`; with --shapes, also the reference graphs of src/shapes/ and the server's own test
// graphs (whose `agent` replaces this folder's).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = args.indexOf('--graphs');
  const graphs = flag === -1 ? undefined : await readGraphsFile(args[flag + 1]);
  const port = args.find((arg, i) => arg !== '--shapes' && (flag === -1 || (i !== flag && i !== flag + 1)));
  const shapes = args.includes('--shapes');
  const server = await startLangGraphServer({
    port: Number(port ?? 2024),
    graphs,
    rawGraphs: shapes ? SHAPE_GRAPHS : undefined,
    assistantConfigs: shapes ? SHAPE_ASSISTANT_CONFIGS : undefined,
    log: console.log,
  });
  console.log(`LangGraph JS server ready at ${server.url} after ${server.startupMs} ms (Ctrl-C stops it)`);
  process.once('SIGINT', () => server.stop().then(() => process.exit(0)));
}
