// `agentplane conformance`: runConformance (@agentplane/conformance) against the servers named
// by the flags; progress on stderr as each check finishes (and each 429 waited out), the summary
// table (or --json) on stdout, JUnit XML with --junit. Interrupted, it stops after the request in flight, deletes what
// the run created, and exits 130 (143 for SIGTERM).
import fs from 'node:fs';
import type { ConformanceOptions } from '@agentplane/conformance';
import { ConformanceUsageError, junitXml, progressLine, rateLimitLine, runConformance, summaryTable } from '@agentplane/conformance';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { EXIT, InterruptedError, UsageError } from '../errors.js';
import { emitJson } from '../output.js';

export async function conformanceCommand(ctx: Context): Promise<ExitCode> {
  const agentServer = ctx.string('agent-server');
  const controlPlane = ctx.string('control-plane');
  const apiKey = ctx.string('api-key');
  if (!agentServer && !controlPlane)
    throw new UsageError(
      'nothing to check',
      'pass --agent-server <url> (a deployment URL), --control-plane <url> (the root URL), or both.',
    );
  if (ctx.flags['allow-writes'] === true && !controlPlane) throw new UsageError('--allow-writes applies to --control-plane only');
  if ((ctx.flags['allow-runs'] === true || ctx.string('scripted-graph-id')) && !agentServer)
    throw new UsageError('--allow-runs and --scripted-graph-id apply to --agent-server only');
  const graphId = ctx.string('graph-id');
  const scriptedGraphId = ctx.string('scripted-graph-id');
  const fetch = ctx.fetch;
  const options: ConformanceOptions = {
    ...(agentServer
      ? {
          agentServer: {
            url: agentServer,
            ...(apiKey ? { apiKey } : {}),
            ...(graphId ? { graphId } : {}),
            ...(scriptedGraphId ? { scriptedGraphId } : {}),
            allowRuns: ctx.flags['allow-runs'] === true,
            ...(fetch ? { fetch } : {}),
          },
        }
      : {}),
    ...(controlPlane
      ? {
          controlPlane: {
            url: controlPlane,
            apiKey: apiKey ?? '',
            allowWrites: ctx.flags['allow-writes'] === true,
            ...(fetch ? { fetch } : {}),
          },
        }
      : {}),
    only: ctx.list('only'),
    skip: ctx.list('skip'),
    onResult: (result) => ctx.stderr.write(`${progressLine(result)}\n`),
    onRateLimit: (wait) => ctx.stderr.write(`${rateLimitLine(wait)}\n`),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  let report: Awaited<ReturnType<typeof runConformance>>;
  try {
    report = await runConformance(options);
  } catch (error) {
    if (error instanceof ConformanceUsageError) throw new UsageError(error.message, error.hint);
    throw error;
  }
  const junit = ctx.string('junit');
  if (junit) fs.writeFileSync(junit, junitXml(report));
  if (ctx.json) emitJson(ctx, report as unknown as Record<string, unknown>);
  else ctx.stdout.write(`${summaryTable(report)}\n`);
  if (report.interrupted) {
    const reason: unknown = ctx.signal?.reason;
    return reason instanceof InterruptedError ? reason.exitCode : EXIT.INTERRUPTED;
  }
  return report.ok ? EXIT.OK : EXIT.FAILED;
}
