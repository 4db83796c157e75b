// When a command-line process of the emulator (the emulator, the recorder) should stop cleanly:
// SIGINT (Ctrl-C), SIGTERM, SIGHUP (its terminal closed), or the process that started it going
// away. The last matters under `npx` and `npm run`: npm starts the command through `sh -c`, and a
// SIGTERM sent to npm kills npm and that shell at once, leaving the emulator running, orphaned,
// holding its ports (or, for the recorder, never writing its file). An orphan is seen by its parent
// process ID changing, checked four times a second.
//
// The first of these starts the stop; later signals are ignored, so that a second Ctrl-C cannot
// kill a recorder halfway through writing its file.
//
// Detached (`--detached`), only SIGINT and SIGTERM stop it: it outlives its terminal and the
// process that started it, as a server started in the background by a CI step's shell must.

const ORPHAN_CHECK_MS = 250;

/** Calls `stop` once, with why, at the first reason to stop; returns what undoes the watch. */
export function onStopRequest(stop: (reason: string) => void, options: { detached?: boolean } = {}): () => void {
  const signals = options.detached ? (['SIGINT', 'SIGTERM'] as const) : (['SIGINT', 'SIGTERM', 'SIGHUP'] as const);
  let stopping = false;
  const request = (reason: string) => {
    if (stopping) return;
    stopping = true;
    stop(reason);
  };
  const handlers = signals.map((signal) => {
    const handler = () => request(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  const parent = process.ppid;
  const watch = options.detached
    ? undefined
    : setInterval(() => {
        if (process.ppid !== parent) request(`the process that started it (pid ${parent}) is gone`);
      }, ORPHAN_CHECK_MS);
  watch?.unref();
  return () => {
    clearInterval(watch);
    // Signals stay handled (ignored) after a stop began: a default handler would kill the process mid-stop.
    if (!stopping) for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
