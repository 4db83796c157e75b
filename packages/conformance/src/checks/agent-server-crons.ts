// The agent server's crons, as stateful scenarios on the run's own crons: create (of its own and
// of a thread), read back by search, update, count, delete, deleted with its thread, and the
// refusals. A cron makes runs, and a run executes the deployment's graph (cost, effects): every
// cron of a run is disabled, or due no sooner than the next 29 February, and deleted at the end,
// so none runs (decision L9). Each check first counts the run's crons, so that a server without
// crons is found not to serve them before anything is created. Each check names the rule it
// enforces and, where the spec declares the LangGraph JS server deliberately differs, its id (L5).
import type { Cron } from '@agentplane/agent-server';
import type { Verify } from '../verify.js';
import type { AgentServerSession } from './agent-server-session.js';
import { answer, expectNotFound, UNKNOWN_THREAD } from './agent-server-session.js';
import type { CheckDefinition } from './check.js';

type Check = CheckDefinition<AgentServerSession>;
const check = (definition: Omit<Check, 'api'>): Check => ({ api: 'agent-server', ...definition });

/** A cron ID no server has. */
const UNKNOWN_CRON = '0193b5e2-4a1c-7d2e-9f3a-5b6c7d8e9f01';
/** The next 29 February at midnight UTC after now: when a cron of `0 0 29 2 *` runs next. */
function nextLeapDay(now = new Date()): string {
  for (let year = now.getUTCFullYear(); ; year++) {
    const day = Date.UTC(year, 1, 29);
    if (new Date(day).getUTCMonth() === 1 && day > now.getTime()) return new Date(day).toISOString();
  }
}

/** The number of the run's crons (with `filter`), or a stop when the count fails. */
async function countOfRun(s: AgentServerSession, v: Verify, filter: Record<string, unknown> = {}): Promise<number> {
  const counted = await answer(
    s.client.POST('/runs/crons/count', { body: { ...filter, metadata: { ...s.tag, ...(filter.metadata as object) } } }),
  );
  if (counted.status !== 200) v.stop(`countCrons answered ${counted.status}`);
  return counted.data!;
}

const ids = (crons: Cron[] | undefined) => (crons ?? []).map((cron) => cron.cron_id);

export const CRON_CHECKS: Check[] = [
  check({
    id: 'crons:create',
    area: 'crons',
    title: 'a cron of its own and a cron of a thread answer what was given, their next run, and whether they are enabled',
    rule: 'createCron, createThreadCron: CronCreate, Cron (next_run_date null while disabled; decision E23)',
    operations: ['countCrons', 'createCron', 'createThreadCron'],
    difference: 'crons-served',
    async run(s, v) {
      await countOfRun(s, v);
      const own = await s.createCron(v, {
        schedule: '0 0 29 2 *',
        enabled: true,
        metadata: { purpose: 'digest' },
        on_run_completed: 'keep',
      });
      v.equal(
        [own.thread_id, own.schedule, own.enabled, own.on_run_completed, own.next_run_date && new Date(own.next_run_date).toISOString()],
        [null, '0 0 29 2 *', true, 'keep', nextLeapDay()],
        'thread_id, schedule, enabled, on_run_completed, next_run_date',
      );
      v.equal(own.metadata.purpose, 'digest', 'metadata');
      const thread = await s.create(v);
      const ofThread = await s.createCron(v, { schedule: '30 9 * * mon-fri', timezone: 'Europe/Lisbon' }, thread.thread_id);
      v.equal(
        [ofThread.thread_id, ofThread.timezone, ofThread.enabled, ofThread.next_run_date],
        [thread.thread_id, 'Europe/Lisbon', false, null],
        'thread_id, timezone, enabled, next_run_date of a disabled cron',
      );
    },
  }),
  check({
    id: 'crons:search-count',
    area: 'crons',
    title: 'crons are found and counted by assistant, thread, enabled and metadata, sorted, paged and selected',
    rule: 'searchCrons: CronSearch; countCrons: CronCount',
    operations: ['countCrons', 'createCron', 'createThreadCron', 'searchCrons'],
    difference: 'crons-served',
    async run(s, v) {
      await countOfRun(s, v);
      const group = crypto.randomUUID();
      const thread = await s.create(v);
      const first = await s.createCron(v, { metadata: { group, kind: 'a' } });
      const second = await s.createCron(v, { metadata: { group, kind: 'b' } }, thread.thread_id);
      const third = await s.createCron(v, { metadata: { group, kind: 'a' }, enabled: true });
      const found = (body: Record<string, unknown>) =>
        answer(s.client.POST('/runs/crons/search', { body: { ...body, metadata: { ...s.tag, group, ...(body.metadata as object) } } }));
      v.equal(ids((await found({})).data), [third.cron_id, second.cron_id, first.cron_id], 'newest first');
      v.equal(
        ids((await found({ sort_by: 'created_at', sort_order: 'asc' })).data),
        [first.cron_id, second.cron_id, third.cron_id],
        'oldest first',
      );
      v.equal(ids((await found({ metadata: { kind: 'a' } })).data), [third.cron_id, first.cron_id], 'by metadata');
      v.equal(ids((await found({ thread_id: thread.thread_id })).data), [second.cron_id], 'by thread');
      v.equal(ids((await found({ enabled: true })).data), [third.cron_id], 'by enabled');
      v.equal(
        ids((await found({ assistant_id: first.assistant_id, limit: 1, offset: 1 })).data),
        [second.cron_id],
        'by assistant, one page',
      );
      const selected = (await found({ select: ['cron_id', 'schedule'], limit: 1 })).data?.[0];
      v.equal(selected?.cron_id, third.cron_id, 'select: the cron');
      v.equal(await countOfRun(s, v, { metadata: { group } }), 3, 'count by metadata');
      v.equal(await countOfRun(s, v, { metadata: { group }, thread_id: thread.thread_id }), 1, 'count by thread');
    },
  }),
  check({
    id: 'crons:update-delete',
    area: 'crons',
    title: 'an update changes what is given (metadata merged) and computes the next run again; a deleted cron is a 404 after',
    rule: 'updateCron: CronPatch, Cron; deleteCron 204, then 404 ErrorDetail',
    operations: ['countCrons', 'createCron', 'updateCron', 'deleteCron'],
    difference: 'crons-served',
    async run(s, v) {
      await countOfRun(s, v);
      const cron = await s.createCron(v, { metadata: { keep: 1 } });
      const updated = await answer(
        s.client.PATCH('/runs/crons/{cron_id}', {
          params: { path: { cron_id: cron.cron_id } },
          body: { enabled: true, metadata: { added: 2 }, end_time: '2020-01-01T00:00:00Z' },
        }),
      );
      v.equal(
        [updated.status, updated.data?.enabled, updated.data?.metadata.keep, updated.data?.metadata.added, updated.data?.next_run_date],
        [200, true, 1, 2, null],
        'status, enabled, merged metadata, and no next run past the end',
      );
      const reopened = await answer(
        s.client.PATCH('/runs/crons/{cron_id}', { params: { path: { cron_id: cron.cron_id } }, body: { end_time: null } }),
      );
      v.equal(
        [reopened.data?.end_time, reopened.data?.next_run_date && new Date(reopened.data.next_run_date).toISOString()],
        [null, nextLeapDay()],
        'end_time null removes the end: the next run is back',
      );
      const deleted = await answer(s.client.DELETE('/runs/crons/{cron_id}', { params: { path: { cron_id: cron.cron_id } } }));
      v.equal(deleted.status, 204, 'delete: status');
      s.forgetCron(cron.cron_id);
      await expectNotFound(v, [
        ['deleteCron', () => s.client.DELETE('/runs/crons/{cron_id}', { params: { path: { cron_id: cron.cron_id } } })],
        ['updateCron', () => s.client.PATCH('/runs/crons/{cron_id}', { params: { path: { cron_id: UNKNOWN_CRON } }, body: {} })],
      ]);
    },
  }),
  check({
    id: 'crons:deleted-with-thread',
    area: 'crons',
    title: "a thread's crons are deleted with it",
    rule: 'createThreadCron: deleting the thread deletes its crons',
    operations: ['countCrons', 'createThreadCron', 'deleteThread'],
    difference: 'crons-served',
    async run(s, v) {
      await countOfRun(s, v);
      const thread = await s.create(v);
      const cron = await s.createCron(v, {}, thread.thread_id);
      await answer(s.client.DELETE('/threads/{thread_id}', { params: { path: { thread_id: thread.thread_id } } }));
      s.forget(thread.thread_id);
      s.forgetCron(cron.cron_id);
      v.equal(await countOfRun(s, v, { thread_id: thread.thread_id }), 0, 'crons of the deleted thread');
    },
  }),
  check({
    id: 'crons:refusals',
    area: 'crons',
    title: 'a schedule that is not cron syntax and an unknown time zone are 422s naming the field; an unknown thread is a 404',
    rule: 'CronSchedule, CronTimezone (UnknownTimezone); 404 of createThreadCron',
    operations: ['countCrons', 'createCron', 'createThreadCron'],
    difference: 'crons-served',
    async run(s, v) {
      const before = await countOfRun(s, v);
      const assistant_id = await s.assistantGraph(v);
      const metadata = s.tag;
      for (const [what, body, loc] of [
        ['minute 60', { assistant_id, schedule: '60 * * * *', enabled: false, metadata }, 'body.schedule'],
        ['unknown time zone', { assistant_id, schedule: '@daily', timezone: 'Europe/Atlantis', enabled: false, metadata }, 'body.timezone'],
      ] as const) {
        const got = await answer<unknown>(s.client.POST('/runs/crons', { body }));
        const locs = ((got.error as { detail?: { loc?: unknown[] }[] } | undefined)?.detail ?? []).map((item) => item.loc?.join('.'));
        v.equal([got.status, locs.includes(loc)], [422, true], `${what}: status, and an issue at ${loc}`);
      }
      await expectNotFound(v, [
        [
          'createThreadCron',
          () =>
            s.client.POST('/threads/{thread_id}/runs/crons', {
              params: { path: { thread_id: UNKNOWN_THREAD } },
              body: { assistant_id, schedule: '@daily', enabled: false, metadata },
            }),
        ],
      ]);
      v.equal(await countOfRun(s, v), before, 'nothing created');
    },
  }),
];
