// Crons (client.crons of the LangGraph SDK) against the emulator in process, on a clock the test
// moves: every method of the JS SDK's CronsClient, the bodies the Python SDK's CronClient sends,
// the runs the schedule makes (on the thread, or each on a new thread deleted afterwards), end
// times, disabling and deleting, a restart on the same file (a missed time run once, never twice),
// and the schedule's syntax and time zones.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@langchain/langgraph-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { nextRunTime, parseSchedule } from '../src/agent-server/crons/cron-schedule.js';
import type { Emulator } from '../src/emulator.js';
import { createEmulator } from '../src/emulator.js';
import { ask } from './support/run-graphs.js';
import { inProcessClient, inProcessRequest } from './support/sdk-client.js';

const MINUTE = 60_000;
const START = Date.parse('2026-03-02T09:00:30Z');

interface Running {
  emulator: Emulator;
  client: Client;
  notices: string[];
}

const open: Emulator[] = [];
let clock = START;
let errors: string[] = [];

function start(db?: string): Running {
  const notices: string[] = [];
  const emulator = createEmulator({
    db,
    now: () => clock,
    onError: (message) => errors.push(message),
    onNotice: (message) => notices.push(message),
  });
  open.push(emulator);
  return { emulator, client: inProcessClient(emulator), notices };
}

afterEach(() => {
  for (const emulator of open.splice(0)) emulator.close();
  clock = START;
  expect(errors).toEqual([]);
  errors = [];
});

/** Lets the runs the last requests made execute (the scripted graph answers at once). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('a cron of a thread', () => {
  it('makes a run on the thread at each time of its schedule once the clock gets there, with cron_id in its metadata', async () => {
    const { client } = start();
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, 'agent', {
      schedule: '* * * * *',
      input: ask('digest'),
      metadata: { purpose: 'digest' },
    });
    expect(cron).toMatchObject({
      thread_id: thread.thread_id,
      schedule: '* * * * *',
      enabled: true,
      next_run_date: '2026-03-02T09:01:00.000Z',
    });
    expect(await client.runs.list(thread.thread_id)).toEqual([]);
    clock += MINUTE;
    const runs = await client.runs.list(thread.thread_id);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.metadata).toMatchObject({ purpose: 'digest', cron_id: cron.cron_id });
    await settle();
    const state = await client.threads.getState(thread.thread_id);
    expect((state.values as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual(['digest', 'digest']);
    // Three minutes later: the times missed between two requests are run once.
    clock += 3 * MINUTE;
    expect(await client.runs.list(thread.thread_id)).toHaveLength(2);
    const [after] = await client.crons.search({ threadId: thread.thread_id });
    expect(after!.next_run_date).toBe('2026-03-02T09:05:00.000Z');
  });

  it('stops at its end time, makes nothing while disabled, and nothing once deleted', async () => {
    const { client } = start();
    const thread = await client.threads.create();
    const ending = await client.crons.createForThread(thread.thread_id, 'agent', {
      schedule: '*/2 * * * *',
      endTime: '2026-03-02T09:03:00Z',
    });
    const paused = await client.crons.createForThread(thread.thread_id, 'agent', { schedule: '* * * * *', enabled: false });
    expect(paused.next_run_date).toBeNull();
    clock += 2 * MINUTE;
    await client.runs.list(thread.thread_id);
    clock += 2 * MINUTE;
    const runs = await client.runs.list(thread.thread_id);
    expect(runs.map((run) => run.metadata?.cron_id)).toEqual([ending.cron_id]);
    expect(
      (await client.crons.search({ threadId: thread.thread_id, sortBy: 'created_at', sortOrder: 'asc' })).map((c) => c.next_run_date),
    ).toEqual([null, null]);
    const enabled = await client.crons.update(paused.cron_id, { enabled: true });
    expect(enabled.next_run_date).toBe('2026-03-02T09:05:00.000Z');
    clock += MINUTE;
    expect(await client.runs.list(thread.thread_id, { limit: 10 })).toHaveLength(2);
    await client.crons.delete(paused.cron_id);
    clock += 5 * MINUTE;
    expect(await client.runs.list(thread.thread_id, { limit: 10 })).toHaveLength(2);
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);
  });

  it('goes with its thread', async () => {
    const { client } = start();
    const thread = await client.threads.create();
    await client.crons.createForThread(thread.thread_id, 'agent', { schedule: '@hourly' });
    await client.threads.delete(thread.thread_id);
    expect(await client.crons.count()).toBe(0);
  });

  it('waits its turn on a busy thread by default; with reject, skips that time and says why', async () => {
    const { client, notices } = start();
    const thread = await client.threads.create();
    // A run held pending for an hour keeps the thread busy.
    await client.runs.create(thread.thread_id, 'agent', { input: ask('hold'), afterSeconds: 3600 });
    const queued = await client.crons.createForThread(thread.thread_id, 'agent', { schedule: '* * * * *' });
    const rejecting = await client.crons.createForThread(thread.thread_id, 'agent', { schedule: '* * * * *', multitaskStrategy: 'reject' });
    clock += MINUTE;
    const runs = await client.runs.list(thread.thread_id);
    expect(runs.filter((run) => run.metadata?.cron_id === queued.cron_id)).toHaveLength(1);
    expect(runs.filter((run) => run.metadata?.cron_id === rejecting.cron_id)).toHaveLength(0);
    expect(notices).toEqual([expect.stringContaining(`cron ${rejecting.cron_id}: the run due at 2026-03-02T09:01:00.000Z was not made`)]);
  });
});

describe('a cron of its own', () => {
  it('runs each time on a new thread, deleted when the run ends unless on_run_completed is keep', async () => {
    const { client } = start();
    const deleting = await client.crons.create('agent', { schedule: '* * * * *', input: ask('hello'), metadata: { tag: 'd' } });
    const keeping = await client.crons.create('agent', {
      schedule: '* * * * *',
      input: ask('hello'),
      onRunCompleted: 'keep',
      metadata: { tag: 'k' },
    });
    expect(deleting).toMatchObject({ thread_id: null, on_run_completed: 'delete' });
    // The SDK's CronCreateResponse does not type on_run_completed, which the API's Cron has.
    expect(keeping).toMatchObject({ on_run_completed: 'keep' });
    clock += MINUTE;
    await client.crons.count();
    await settle();
    const kept = await client.threads.search({ metadata: { tag: 'k' } });
    expect(kept).toHaveLength(1);
    expect(kept[0]!.metadata).toMatchObject({ cron_id: keeping.cron_id });
    expect(await client.threads.search({ metadata: { tag: 'd' } })).toEqual([]);
  });
});

describe('the CronsClient surface', () => {
  it('searches by assistant, thread, enabled and metadata, sorts, pages and selects; counts', async () => {
    const { client } = start();
    const thread = await client.threads.create();
    const assistant = await client.assistants.create({ graphId: 'agent', name: 'other' });
    clock += 1000;
    const a = await client.crons.create('agent', { schedule: '0 9 * * *', metadata: { team: 'x' } });
    clock += 1000;
    const b = await client.crons.createForThread(thread.thread_id, assistant.assistant_id, { schedule: '0 8 * * *', enabled: false });
    clock += 1000;
    const c = await client.crons.create(assistant.assistant_id, {
      schedule: '30 9 * * *',
      metadata: { team: 'x' },
      timezone: 'Europe/Lisbon',
    });
    const ids = (crons: { cron_id: string }[]) => crons.map((cron) => cron.cron_id);
    expect(ids(await client.crons.search())).toEqual([c.cron_id, b.cron_id, a.cron_id]);
    expect(ids(await client.crons.search({ assistantId: assistant.assistant_id, sortOrder: 'asc' }))).toEqual([b.cron_id, c.cron_id]);
    expect(ids(await client.crons.search({ assistantId: 'agent' }))).toEqual([a.cron_id]);
    expect(ids(await client.crons.search({ enabled: false }))).toEqual([b.cron_id]);
    // a's 09:00 has passed today (it is 09:00:31): tomorrow's comes after c's 09:30 today.
    expect(ids(await client.crons.search({ metadata: { team: 'x' }, sortBy: 'next_run_date', sortOrder: 'asc' }))).toEqual([
      c.cron_id,
      a.cron_id,
    ]);
    expect(ids(await client.crons.search({ limit: 1, offset: 1 }))).toEqual([b.cron_id]);
    const [selected] = await client.crons.search({ select: ['cron_id', 'schedule'], limit: 1 });
    expect(selected).not.toHaveProperty('payload');
    expect(selected).toHaveProperty('next_run_date');
    expect(await client.crons.count({ metadata: { team: 'x' } })).toBe(2);
    expect(await client.crons.count({ assistantId: assistant.assistant_id, threadId: thread.thread_id })).toBe(1);
    // 09:30 in Lisbon (UTC+0 in March) is 09:30 UTC, after 09:00 of that day.
    expect(c.next_run_date).toBe('2026-03-02T09:30:00.000Z');
    const updated = await client.crons.update(a.cron_id, { schedule: '15 10 * * *', metadata: { team: 'y' }, input: ask('new') });
    expect(updated).toMatchObject({ schedule: '15 10 * * *', metadata: { team: 'y' }, next_run_date: '2026-03-02T10:15:00.000Z' });
    expect(updated.payload).toMatchObject({ input: ask('new'), metadata: { team: 'y' } });
  });

  it('answers 404 for an unknown cron, thread or assistant, 422 for a bad schedule or time zone', async () => {
    const { emulator } = start();
    const unknown = '0193b5e2-4a1c-7d2e-9f3a-5b6c7d8e9f01';
    expect((await inProcessRequest(emulator, 'PATCH', `/runs/crons/${unknown}`, { enabled: false })).status).toBe(404);
    expect((await inProcessRequest(emulator, 'DELETE', `/runs/crons/${unknown}`)).status).toBe(404);
    expect(
      (await inProcessRequest(emulator, 'POST', `/threads/${unknown}/runs/crons`, { assistant_id: 'agent', schedule: '@daily' })).status,
    ).toBe(404);
    expect((await inProcessRequest(emulator, 'POST', '/runs/crons', { assistant_id: 'nope', schedule: '@daily' })).status).toBe(404);
    const schedule = await inProcessRequest(emulator, 'POST', '/runs/crons', { assistant_id: 'agent', schedule: '60 * * * *' });
    expect(schedule.body.detail[0]).toMatchObject({ loc: ['body', 'schedule'], type: 'string_pattern_mismatch' });
    const timezone = await inProcessRequest(emulator, 'POST', '/runs/crons', {
      assistant_id: 'agent',
      schedule: '@daily',
      timezone: 'Europe/Atlantis',
    });
    expect(timezone.body.detail).toEqual([
      { loc: ['body', 'timezone'], msg: 'Europe/Atlantis is not a time zone of the IANA database', type: 'value_error' },
    ]);
    expect(
      (
        await inProcessRequest(emulator, 'POST', '/runs/crons', {
          assistant_id: 'agent',
          schedule: '@daily',
          end_time: '2026-12-31T00:00:00',
        })
      ).status,
    ).toBe(422);
  });
});

describe('the Python SDK CronClient, as it sends its requests', () => {
  it('create_for_thread, create, update (end_time None clears it), search, count, delete', async () => {
    const { emulator, client } = start();
    const thread = await client.threads.create();
    const forThread = await inProcessRequest(emulator, 'POST', `/threads/${thread.thread_id}/runs/crons`, {
      schedule: '0 * * * *',
      input: { messages: [{ role: 'user', content: 'hello!' }] },
      metadata: { name: 'my_run' },
      context: { model_name: 'openai' },
      assistant_id: 'agent',
      checkpoint_during: true,
      multitask_strategy: 'enqueue',
      end_time: '2026-12-31T00:00:00+00:00',
      enabled: true,
      timezone: 'America/New_York',
      durability: 'async',
    });
    expect(forThread.status).toBe(200);
    const own = await inProcessRequest(emulator, 'POST', '/runs/crons', {
      schedule: '0 6 * * *',
      assistant_id: 'agent',
      on_run_completed: 'keep',
    });
    expect(own.status).toBe(200);
    const updated = await inProcessRequest(emulator, 'PATCH', `/runs/crons/${forThread.body.cron_id}`, {
      schedule: '0 10 * * *',
      end_time: null,
      enabled: true,
    });
    expect(updated.body).toMatchObject({ end_time: null, schedule: '0 10 * * *' });
    const search = await inProcessRequest(emulator, 'POST', '/runs/crons/search', {
      assistant_id: 'agent',
      limit: 10,
      offset: 0,
      sort_by: 'end_time',
      sort_order: 'asc',
      select: ['cron_id', 'now'],
    });
    expect(search.body).toHaveLength(2);
    expect((await inProcessRequest(emulator, 'POST', '/runs/crons/count', { thread_id: thread.thread_id })).body).toBe(1);
    expect((await inProcessRequest(emulator, 'DELETE', `/runs/crons/${own.body.cron_id}`)).status).toBe(204);
    expect((await inProcessRequest(emulator, 'POST', '/runs/crons/count', {})).body).toBe(1);
  });
});

describe('restarts', () => {
  it('a time missed while the emulator was down runs once at start-up, and a time run before the stop never again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-crons-'));
    const db = path.join(dir, 'emulator.db');
    try {
      const first = start(db);
      const thread = await first.client.threads.create();
      const cron = await first.client.crons.createForThread(thread.thread_id, 'agent', { schedule: '* * * * *' });
      clock += MINUTE;
      expect(await first.client.runs.list(thread.thread_id)).toHaveLength(1);
      await settle();
      first.emulator.close();
      // Down for ten minutes: one run for the missed times, made at start-up (no request needed).
      clock += 10 * MINUTE;
      const second = start(db);
      await settle();
      const runs = await second.client.runs.list(thread.thread_id);
      expect(runs.map((run) => run.metadata?.cron_id)).toEqual([cron.cron_id, cron.cron_id]);
      const [after] = await second.client.crons.search();
      expect(after!.next_run_date).toBe('2026-03-02T09:12:00.000Z');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the schedule', () => {
  const next = (schedule: string, after: string, timeZone?: string) => {
    const at = nextRunTime(parseSchedule(schedule), Date.parse(after), timeZone);
    return at === null ? null : new Date(at).toISOString();
  };

  it('reads fields, ranges, steps, lists, names and macros', () => {
    expect(next('*/15 * * * *', '2026-03-02T09:00:00Z')).toBe('2026-03-02T09:15:00.000Z');
    expect(next('0 9 * * mon-fri', '2026-03-06T10:00:00Z')).toBe('2026-03-09T09:00:00.000Z');
    expect(next('5/20 * * * *', '2026-03-02T09:30:00Z')).toBe('2026-03-02T09:45:00.000Z');
    expect(next('0 22-2 * * *', '2026-03-02T23:30:00Z')).toBe('2026-03-03T00:00:00.000Z');
    expect(next('0 0 1,15 feb *', '2026-03-02T00:00:00Z')).toBe('2027-02-01T00:00:00.000Z');
    expect(next('@weekly', '2026-03-02T00:00:00Z')).toBe('2026-03-08T00:00:00.000Z');
    expect(next('0 12 * * 7', '2026-03-02T00:00:00Z')).toBe('2026-03-08T12:00:00.000Z');
    // Both day fields restricted: either matches.
    expect(next('0 0 13 * fri', '2026-03-02T00:00:00Z')).toBe('2026-03-06T00:00:00.000Z');
    expect(next('0 0 29 2 *', '2026-03-02T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(next('0 0 31 2 *', '2026-03-02T00:00:00Z')).toBeNull();
  });

  it('reads the time zone, across daylight-saving changes', () => {
    expect(next('0 9 * * *', '2026-03-02T00:00:00Z', 'America/New_York')).toBe('2026-03-02T14:00:00.000Z');
    // 8 March 2026: 02:00 to 03:00 is skipped in New York; 02:30 runs at 03:30 EDT.
    expect(next('30 2 * * *', '2026-03-08T05:00:00Z', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
    // 1 November 2026: 01:00 to 02:00 happens twice; 01:30 runs once, at its first occurrence.
    expect(next('30 1 * * *', '2026-11-01T04:00:00Z', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    expect(next('30 1 * * *', '2026-11-01T05:30:00Z', 'America/New_York')).toBe('2026-11-02T06:30:00.000Z');
  });
});
