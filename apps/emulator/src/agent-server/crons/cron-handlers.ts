// The cron operations of the agent server API. Requests arrive validated (the schedule's syntax,
// bounds, defaults); handlers add what a schema cannot state (the time zone is one the IANA
// database has, the thread and assistant exist, the assistant's graph is served), keep the
// scheduler informed, and shape the answers.
import type { Cron, CronCreate, CronSearch } from '@agentplane/agent-server';
import { CronSchema } from '../../generated/agent-server/contract.js';
import { HttpError, validationError } from '../../http/http-error.js';
import { canonicalUuid, newThreadId } from '../../shared/ids.js';
import type { AssistantStore } from '../assistants/assistant-store.js';
import type { GraphRegistry } from '../graphs/scripted-graph.js';
import type { AgentServerHandlers } from '../handler-map.js';
import type { ThreadStore } from '../threads/thread-store.js';
import { isKnownTimeZone } from './cron-schedule.js';
import type { CronScheduler } from './cron-scheduler.js';
import { nextRunMs } from './cron-scheduler.js';
import type { CronFilter, CronRow, CronStore } from './cron-store.js';
import { toCron } from './cron-store.js';

type Values = Record<string, unknown>;

/** The fields of a cron's body that are the run it makes (its payload), besides `assistant_id`. */
const RUN_FIELDS = [
  'input',
  'metadata',
  'config',
  'context',
  'interrupt_before',
  'interrupt_after',
  'webhook',
  'multitask_strategy',
  'checkpoint_during',
  'durability',
  'stream_mode',
  'stream_subgraphs',
  'stream_resumable',
] as const;

export interface CronHandlerOptions {
  /** The clock of the timestamps (tests move it); the schedule's is the scheduler's. */
  now?: (() => number) | undefined;
}

export function cronHandlers(
  crons: CronStore,
  scheduler: Pick<CronScheduler, 'changed' | 'scheduleNow'>,
  parts: { assistants: AssistantStore; graphs: GraphRegistry; threads: ThreadStore },
  options: CronHandlerOptions = {},
) {
  const now = options.now ?? Date.now;
  const checkTimeZone = (timeZone: string | null | undefined) => {
    if (timeZone != null && !isKnownTimeZone(timeZone))
      throw validationError([
        { loc: ['body', 'timezone'], msg: `${timeZone} is not a time zone of the IANA database`, type: 'value_error' },
      ]);
  };
  /** The assistant a cron names (its ID or a graph ID), whose graph the deployment serves. */
  const assistantOf = (named: string): string => {
    const assistant = parts.assistants.resolve(named);
    if (!assistant)
      throw new HttpError(
        404,
        `No assistant found for "${named}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`,
      );
    if (!parts.graphs.get(assistant.graph_id)) throw new HttpError(404, `Graph "${assistant.graph_id}" not found.`);
    return assistant.assistant_id;
  };
  const requireCron = (cronId: string): CronRow => {
    const cron = crons.get(canonicalUuid(cronId));
    if (!cron) throw new HttpError(404, `Cron with ID ${canonicalUuid(cronId)} not found.`);
    return cron;
  };
  /** A filter's assistant, by its ID or a graph ID; one that names nothing matches nothing. */
  const filterOf = (body: Pick<CronSearch, 'assistant_id' | 'thread_id' | 'enabled' | 'metadata'>): CronFilter => ({
    ...body,
    assistant_id: body.assistant_id === undefined ? undefined : (parts.assistants.resolve(body.assistant_id)?.assistant_id ?? ''),
    thread_id: body.thread_id === undefined ? undefined : canonicalUuid(body.thread_id),
  });

  const create = (threadId: string | null, body: CronCreate) => {
    checkTimeZone(body.timezone);
    const assistantId = assistantOf(body.assistant_id);
    return crons.transaction(() => {
      if (threadId !== null && !parts.threads.exists(threadId)) throw new HttpError(404, `Thread with ID ${threadId} not found.`);
      const nowMs = now();
      const created = new Date(nowMs).toISOString();
      const cron: CronRow = {
        cron_id: newThreadId(),
        assistant_id: assistantId,
        thread_id: threadId,
        schedule: body.schedule,
        timezone: body.timezone ?? null,
        end_time: instantText(body.end_time ?? null),
        enabled: body.enabled ?? true,
        // A thread's cron runs on its thread, which stays.
        on_run_completed: threadId === null ? (body.on_run_completed ?? 'delete') : null,
        next_run_ms: null,
        metadata: body.metadata ?? {},
        payload: { assistant_id: assistantId, ...pick(body, RUN_FIELDS) },
        created_at: created,
        updated_at: created,
      };
      cron.next_run_ms = nextRunMs(cron, scheduler.scheduleNow());
      crons.insert(cron);
      scheduler.changed();
      return { status: 200 as const, body: toCron(cron) };
    });
  };

  // `select` chooses among a cron's optional fields; the required ones are always answered.
  const alwaysSelected = CronSchema.required;

  return {
    createCron({ body }) {
      return create(null, body);
    },

    createThreadCron({ path, body }) {
      return create(canonicalUuid(path.thread_id), body);
    },

    updateCron({ path, body }) {
      checkTimeZone(body.timezone);
      return crons.transaction(() => {
        const current = requireCron(path.cron_id);
        const nowMs = now();
        const given = pick(body, RUN_FIELDS) as Values;
        const updated: CronRow = {
          ...current,
          schedule: body.schedule ?? current.schedule,
          timezone: body.timezone === undefined ? current.timezone : body.timezone,
          end_time: body.end_time === undefined ? current.end_time : instantText(body.end_time),
          enabled: body.enabled ?? current.enabled,
          on_run_completed: current.thread_id === null ? (body.on_run_completed ?? current.on_run_completed) : null,
          metadata: body.metadata === undefined ? current.metadata : { ...current.metadata, ...body.metadata },
          payload: { ...current.payload, ...given },
          updated_at: new Date(nowMs).toISOString(),
        };
        if (body.metadata !== undefined) updated.payload.metadata = updated.metadata;
        const rescheduled = ['schedule', 'timezone', 'end_time', 'enabled'].some((field) => field in body);
        if (rescheduled) updated.next_run_ms = nextRunMs(updated, scheduler.scheduleNow());
        crons.update(updated);
        scheduler.changed();
        return { status: 200, body: toCron(updated) };
      });
    },

    deleteCron({ path }) {
      return crons.transaction(() => {
        requireCron(path.cron_id);
        crons.delete(canonicalUuid(path.cron_id));
        scheduler.changed();
        return { status: 204 as const };
      });
    },

    searchCrons({ body }) {
      const key = body.sort_by ?? 'created_at';
      const direction = (body.sort_order ?? 'desc') === 'asc' ? 1 : -1;
      const matches = crons.matching(filterOf(body));
      // Creation order breaks ties (the rows come in it); a null sorts before every value.
      const sorted = matches
        .map((row, position) => ({ row, cron: toCron(row), position }))
        .sort((a, b) => direction * (compare(a.cron[key], b.cron[key]) || a.position - b.position));
      const offset = body.offset ?? 0;
      const select = body.select ? new Set<string>([...alwaysSelected, ...body.select]) : undefined;
      const page = crons
        .withPayload(sorted.slice(offset, offset + (body.limit ?? 10)).map(({ row }) => row))
        .map((row) => (select ? selected(toCron(row), select) : toCron(row)));
      return { status: 200, body: page };
    },

    countCrons({ body }) {
      return { status: 200, body: crons.matching(filterOf(body)).length };
    },
  } satisfies Partial<AgentServerHandlers>;
}

function pick<T extends object, K extends readonly string[]>(body: T, fields: K): Values {
  const picked: Values = {};
  for (const field of fields) if ((body as Values)[field] !== undefined) picked[field] = (body as Values)[field];
  return picked;
}

/** A date-time as UTC text (`...Z`), so that end times sort and compare as instants. */
function instantText(dateTime: string | null): string | null {
  return dateTime === null ? null : new Date(dateTime).toISOString();
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return String(a) < String(b) ? -1 : 1;
}

function selected(cron: Cron, fields: Set<string>): Cron {
  return Object.fromEntries(Object.entries(cron).filter(([field]) => fields.has(field))) as Cron;
}
