// A revision's build and deploy logs as the commands show them: followed while a wait polls
// (`--logs`, `logs --follow`), read whole (`logs`), or the tail of the phase that failed (what
// `deploy` and `wait` print when a revision fails). Every line printed has the run's secret values
// masked. Which log says why a status failed is the spec's `x-failure-log` of RevisionStatus.
import type { RevisionLogEntry, RevisionLogType, RevisionStatus } from '@agentplane/control-plane';
import { readRevisionLog, unwrap } from '@agentplane/control-plane';
import type { Context } from './context.js';
import { RevisionLogTypeSchema, RevisionStatusSchema } from './generated/contract.js';
import { signal } from './resolve.js';
import { maskSecrets } from './secrets.js';

/** The logs of a revision, in the order its phases run. */
export const LOG_TYPES: readonly RevisionLogType[] = RevisionLogTypeSchema.enum;

const FAILURE_LOG: Readonly<Partial<Record<RevisionStatus, RevisionLogType>>> = RevisionStatusSchema['x-failure-log'];

/** How many lines of the failing phase's log a failed wait prints. */
export const TAIL_LINES = 20;

/** The log whose end says why a revision in this status failed; undefined when none does (SKIPPED: superseded, not failed). */
export function failureLog(status: RevisionStatus): RevisionLogType | undefined {
  return FAILURE_LOG[status];
}

/** One log line as printed: time, level, the log it comes from when several are shown, the message (secrets masked). */
export function formatLogLine(ctx: Context, entry: RevisionLogEntry, type?: RevisionLogType): string {
  const from = type ? `${type.padEnd(6)} ` : '';
  return `${entry.timestamp}  ${entry.level.padEnd(8)} ${from}${maskSecrets(entry.message, ctx.secretValues)}`;
}

/**
 * Follows some of a revision's logs: each call to `poll` reads the lines written since the last
 * one (by each log's cursor) and hands them to `print`, build lines before deploy lines. A log
 * whose cursor comes back null is complete and not read again. Reading is best effort: a log
 * that cannot be read is reported once and then left alone, so it never ends a wait.
 */
export class LogFollower {
  private readonly cursors = new Map<RevisionLogType, string | null | undefined>();
  private readonly failed = new Set<RevisionLogType>();

  constructor(
    private readonly ctx: Context,
    private readonly deploymentId: string,
    private readonly revisionId: string,
    readonly types: readonly RevisionLogType[],
    private readonly print: (entry: RevisionLogEntry, type: RevisionLogType) => void,
    private readonly report: (text: string) => void,
  ) {}

  async poll(): Promise<void> {
    for (const type of this.types) {
      const cursor = this.cursors.get(type);
      if (cursor === null || this.failed.has(type)) continue;
      try {
        const read = await readRevisionLog(
          this.ctx.client('api-key'),
          this.deploymentId,
          this.revisionId,
          { type },
          { ...(cursor === undefined ? {} : { offset: cursor }), ...signal(this.ctx) },
        );
        for (const entry of read.entries) this.print(entry, type);
        this.cursors.set(type, read.nextOffset);
      } catch (error) {
        if (this.ctx.signal?.aborted) throw error;
        this.failed.add(type);
        this.report(`(could not read the ${type} log: ${error instanceof Error ? error.message : String(error)}; not following it)`);
      }
    }
  }

  /** Whether every followed log is complete and was read to its end. */
  get complete(): boolean {
    return this.types.every((type) => this.cursors.get(type) === null);
  }
}

/** The last `count` lines of one log, oldest first. */
export async function logTail(
  ctx: Context,
  deploymentId: string,
  revisionId: string,
  type: RevisionLogType,
  count = TAIL_LINES,
): Promise<RevisionLogEntry[]> {
  const page = unwrap(
    await ctx.client('api-key').GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
      params: { path: { deployment_id: deploymentId, revision_id: revisionId }, query: { type, order: 'desc', limit: count } },
      ...signal(ctx),
    }),
  );
  return page.logs.reverse();
}
