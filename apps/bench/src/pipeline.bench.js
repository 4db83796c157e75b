// Pipeline benchmark: how long `turbo run build` takes cold, with no change, and after a
// one-line edit of each API's spec, and which tasks each edit re-ran. The edit is reverted
// (and the cache restores the original outputs) before the next step.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@agentplane/openapi-toolkit';
import { percentile } from './http-load.js';

export const title = 'Pipeline: turbo run build';

const TURBO = path.join(REPO_ROOT, 'node_modules', 'turbo', 'bin', 'turbo');
const RUNS_DIR = path.join(REPO_ROOT, '.turbo', 'runs');
const EDITS = {
  'agent-server': 'spec/agent-server/components/schemas/ThreadStatus.yaml',
  'control-plane': 'spec/control-plane/components/schemas/RevisionStatus.yaml',
};

/**
 * Runs the build once; returns wall time and the cache status of every task.
 * @param {string[]} [extraArgs]
 * @returns {{ms: number, tasks: {id: string, hit: boolean}[], executed: string[]}}
 */
function build(extraArgs = []) {
  fs.rmSync(RUNS_DIR, { recursive: true, force: true });
  const started = performance.now();
  execFileSync(process.execPath, [TURBO, 'run', 'build', '--summarize', '--output-logs=errors-only', ...extraArgs], {
    cwd: REPO_ROOT,
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const ms = performance.now() - started;
  const summaryFile = fs.readdirSync(RUNS_DIR).find((f) => f.endsWith('.json'));
  /** @type {{tasks: {taskId: string, cache: {status: string}}[]}} */
  const summary = JSON.parse(fs.readFileSync(path.join(RUNS_DIR, /** @type {string} */ (summaryFile)), 'utf8'));
  const tasks = summary.tasks.map((t) => ({ id: t.taskId, hit: t.cache.status === 'HIT' }));
  return { ms, tasks, executed: tasks.filter((t) => !t.hit).map((t) => t.id) };
}

const fmt = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(2)} s`;

export async function run() {
  const cold = build(['--force']);
  const warm = [build(), build(), build()];
  const warmMs = percentile(
    warm.map((r) => r.ms),
    50,
  );
  const fullHit = warm.every((r) => r.executed.length === 0);

  /** @type {[string, string, string][]} */
  const rows = [
    ['cold build (--force, every task runs)', fmt(cold.ms), `${cold.executed.length}/${cold.tasks.length} tasks ran`],
    [
      'no-change build (median of 3)',
      fmt(warmMs),
      fullHit
        ? `full cache hit (${cold.tasks.length}/${cold.tasks.length})`
        : `NOT a full hit: ${warm.flatMap((r) => r.executed).join(', ')}`,
    ],
  ];

  for (const [api, file] of Object.entries(EDITS)) {
    const absolute = path.join(REPO_ROOT, file);
    const original = fs.readFileSync(absolute, 'utf8');
    try {
      fs.writeFileSync(absolute, `${original}x-bench-edit: ${Date.now()}\n`);
      const edited = build();
      rows.push([`one-line edit of spec/${api} → artifacts rebuilt`, fmt(edited.ms), `re-ran: ${edited.executed.join(', ') || 'nothing'}`]);
    } finally {
      fs.writeFileSync(absolute, original);
    }
    const restored = build();
    rows.push([
      `  edit reverted → outputs restored`,
      fmt(restored.ms),
      restored.executed.length === 0 ? 'full cache hit' : `re-ran: ${restored.executed.join(', ')}`,
    ]);
  }

  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [what, time, note] of rows) console.log(`${what.padEnd(width)}  ${time.padStart(8)}  ${note}`);
  console.log(`\nno-change / cold ratio: ${(warmMs / cold.ms).toFixed(3)}`);
}
