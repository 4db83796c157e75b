// The `agentplane` process around run(), started by bin/agentplane.js. The first SIGINT (or SIGTERM)
// aborts the run, which stops a wait and exits 130 (143) without touching the deployment; a
// second one exits at once.
import { InterruptedError } from './errors.js';
import { run } from './run.js';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
    controller.abort(new InterruptedError(signal));
  });
}

process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  isTTY: process.stderr.isTTY === true,
  columns: process.stderr.columns,
  signal: controller.signal,
});
