// Each contender of a comparison runs alone on the machine: while one server is measured, the
// others are stopped (SIGSTOP), and its rounds start once it is quiet itself. On 2 cores a
// server's background work otherwise lands in another's rounds and is charged to that one:
// the LangGraph JS dev server writes its whole store to disk (superjson, every thread) 3 s after
// its last request, which with rounds of 1.5 s falls in the emulator's or the floor server's
// next round; the emulator's WAL checkpointer thread copies what a round wrote after it ended.
// Stopped, a server does that work when it runs again, before its own round: what it costs is
// visible in nobody's figures, instead of in somebody else's.
import fs from 'node:fs';
import { cpuSecondsIn, procStat } from './emulator-process.js';

const QUIET_POLL_MS = 100;
/**
 * Quiet: less CPU than this over one poll (/proc counts in ticks of 10 ms, so this is "none"), and
 * no process of the server running or waiting to run (state R): on a busy machine a server can get
 * no CPU for a whole poll and still be in the middle of its work.
 */
const QUIET_CPU_S = 0.01;
const QUIET_WAIT_MS = 5_000;

/**
 * The processes of a server: its process group when it leads one (a server that starts children,
 * such as `langgraphjs dev`, is spawned detached for that), else its one process. Never the
 * group of a process that does not lead it: that would be this benchmark's own.
 * @param {number} pid
 */
function processesOf(pid) {
  const leadsGroup = procStat(pid)?.[2] === String(pid);
  /**
   * The /proc stat fields of each of its processes still there, each read once.
   * @returns {string[][]}
   */
  const stats = () => {
    const candidates = leadsGroup ? fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)) : [String(pid)];
    return candidates.flatMap((entry) => {
      const fields = procStat(Number(entry));
      return fields && (!leadsGroup || fields[2] === String(pid)) ? [fields] : [];
    });
  };
  return {
    /** @param {'SIGSTOP' | 'SIGCONT'} signal */
    signal(signal) {
      try {
        process.kill(leadsGroup ? -pid : pid, signal);
      } catch {
        // gone: nothing to stop or resume
      }
    },
    /**
     * One look at its processes, each stat read once: their CPU seconds so far, and whether one of
     * them is running or waiting for a CPU.
     */
    sample() {
      let cpu = 0;
      let runnable = false;
      for (const fields of stats()) {
        cpu += cpuSecondsIn(fields);
        runnable ||= fields[0] === 'R';
      }
      return { cpu, runnable };
    },
  };
}

/**
 * The servers of one comparison; `alone(pid)` stops the others, resumes that one and waits until
 * it is quiet; `resumeAll()` lets every one run again (always call it, or they stay stopped).
 * @param {number[]} pids
 */
export function isolate(pids) {
  const servers = new Map([...new Set(pids)].map((pid) => [pid, processesOf(pid)]));
  const resumeAll = () => {
    for (const server of servers.values()) server.signal('SIGCONT');
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
  };
  // Interrupted while servers are stopped: let them run again (and see the signal their group
  // got), then go as the signal would have made this process go.
  const interrupted = (/** @type {NodeJS.Signals} */ signal) => {
    resumeAll();
    process.kill(process.pid, signal);
  };
  return {
    /** @param {number} pid */
    async alone(pid) {
      if (!process.listeners('SIGINT').includes(interrupted)) {
        process.once('SIGINT', interrupted);
        process.once('SIGTERM', interrupted);
      }
      for (const [other, server] of servers) if (other !== pid) server.signal('SIGSTOP');
      const server = servers.get(pid);
      if (!server) return;
      server.signal('SIGCONT');
      let before = server.sample();
      for (const started = Date.now(); Date.now() - started < QUIET_WAIT_MS; ) {
        await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
        const now = server.sample();
        if (now.cpu - before.cpu < QUIET_CPU_S && !now.runnable) return;
        before = now;
      }
    },
    resumeAll,
  };
}
