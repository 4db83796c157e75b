// Checkpoints stored by what changed (decision E29): what every read answers is what whole values
// stored at each checkpoint would answer. Random conversations (messages appended, replaced by
// ID, removed one by one and all at once; other keys replaced, growing and shrinking; forks from
// old checkpoints; runs; copies; prunes; deletes) are held, checkpoint by checkpoint, to a model
// that keeps every checkpoint's values whole, and read again by an emulator started cold on the
// same file. Copies stay whole when their source goes; items no checkpoint or answer names any
// more are deleted; and a thread's storage grows with what was said, not its square.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../src/emulator.js';
import { canonicalJson } from '../src/shared/canonical-json.js';
import { INLINE_LIST_CHARS } from '../src/store/stored-values.js';

type Values = Record<string, unknown>;
type Message = Values & { id: string; type: string };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-checkpoint-storage-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function emulatorOn(file: string) {
  const emulator = createEmulator({ db: file, timeScale: 0 });
  const { fetch: call, url } = emulator.agentServer;
  const send = async (method: string, target: string, body?: unknown) => {
    const response = await call(`${url}${target}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${target}: ${response.status} ${text}`);
    return text;
  };
  const json = async (method: string, target: string, body?: unknown) => {
    const text = await send(method, target, body);
    return text === '' ? undefined : JSON.parse(text);
  };
  return { emulator, send, json };
}

/** A seeded generator (mulberry32), so that a failing conversation can be replayed by its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    chance: (p: number) => next() < p,
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
  };
}

/** The messages reducer as LangGraph has it, for messages that carry their IDs and every default field. */
function mergeMessages(current: Message[], written: Values[]): Message[] {
  let messages = [...current];
  for (const message of written) {
    if (message.type === 'remove') {
      messages = message.id === '__remove_all__' ? [] : messages.filter((m) => m.id !== message.id);
      continue;
    }
    const at = messages.findIndex((m) => m.id === message.id);
    if (at >= 0) messages[at] = message as Message;
    else messages.push(message as Message);
  }
  return messages;
}

/** The values text a checkpoint stored whole answers: its canonical text, read back and written out. */
const answered = (values: Values) => JSON.stringify(JSON.parse(canonicalJson(values)));

interface ModelThread {
  /** Every checkpoint's values the model knows (a run's last, an update's), by checkpoint ID. */
  values: Map<string, Values>;
  latest: string | undefined;
}

describe('checkpoints stored by what changed', () => {
  it('answer every read of random conversations as whole values would, warm and cold', { timeout: 120_000 }, async () => {
    // What the conversations did, over every seed: each kind of write must have happened.
    const happened = { forks: 0, runs: 0, copies: 0, prunes: 0, deletes: 0, listsOfSeveralRanges: 0 };
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const file = path.join(dir, `random-${seed}.db`);
      const rng = random(seed);
      const { emulator, json, send } = emulatorOn(file);
      const model = new Map<string, ModelThread>();
      /** Every thread's history as read right after its last write, to read again at the end. */
      const seen = new Map<string, string>();
      let made = 0;
      const message = (type: 'human' | 'ai', id = `m-${seed}-${made++}`): Message => {
        const long = rng.chance(0.3);
        const content = `${type} ${id} `.padEnd(long ? 300 : 20, 'xyz');
        const base: Message = { additional_kwargs: {}, content, id, response_metadata: {}, type };
        return type === 'ai' ? { ...base, invalid_tool_calls: [], tool_calls: [] } : base;
      };
      const newThread = async () => {
        const threadId = (await json('POST', '/threads', { metadata: { seed } })).thread_id as string;
        model.set(threadId, { values: new Map(), latest: undefined });
        return threadId;
      };
      const record = async (threadId: string) => seen.set(threadId, await send('POST', `/threads/${threadId}/history`, { limit: 1000 }));
      await newThread();

      for (let step = 0; step < 60; step++) {
        const threadIds = [...model.keys()];
        const threadId = rng.pick(threadIds);
        const thread = model.get(threadId)!;
        const known = [...thread.values.keys()];
        const roll = rng.next();
        if (roll < 0.45 || thread.latest === undefined) {
          // A state update, on the latest checkpoint or (a fork) an older one.
          const fork = known.length > 1 && rng.chance(0.2) ? rng.pick(known) : undefined;
          if (fork) happened.forks++;
          const base = (fork ? thread.values.get(fork) : thread.latest ? thread.values.get(thread.latest) : undefined) ?? {};
          const current = (base.messages as Message[] | undefined) ?? [];
          const written: Values[] = [];
          for (let i = rng.int(3); i >= 0; i--) written.push(message(rng.chance(0.5) ? 'human' : 'ai'));
          if (current.length > 0 && rng.chance(0.3)) written.push({ ...message('ai', rng.pick(current).id), content: 'replaced' });
          if (current.length > 0 && rng.chance(0.25)) written.push({ type: 'remove', id: rng.pick(current).id });
          if (rng.chance(0.05)) written.push({ type: 'remove', id: 'nobody' });
          if (rng.chance(0.04)) written.push({ type: 'remove', id: '__remove_all__' });
          const update: Values = { messages: written };
          if (rng.chance(0.4)) update.counter = rng.int(1000);
          if (rng.chance(0.3)) update.doc = `doc ${step} `.padEnd(rng.chance(0.5) ? 400 : 10, '.');
          if (rng.chance(0.3)) update.tags = Array.from({ length: rng.int(8) }, (_, i) => `tag-${step}-${i}`.padEnd(rng.int(60), '#'));
          if (rng.chance(0.2)) update.nested = { z: step, a: { y: [step, { x: null }], b: 'b' }, 10: 'ten', 9: 'nine' };
          const answer = await json('POST', `/threads/${threadId}/state`, {
            values: update,
            as_node: 'agent',
            ...(fork ? { checkpoint_id: fork } : {}),
          });
          const { messages: _, ...others } = update;
          const after = { ...base, ...others, messages: mergeMessages(current, written) };
          const id = answer.checkpoint.checkpoint_id as string;
          thread.values.set(id, after);
          thread.latest = id;
          // Served from the latest-checkpoint cache: what was just written, in memory.
          const state = await json('GET', `/threads/${threadId}/state`);
          expect(JSON.stringify(state.values)).toBe(answered(after));
        } else if (roll < 0.7) {
          // A run of the echo graph: the input, then its reply; its last checkpoint's values are its answer.
          happened.runs++;
          const before = thread.values.get(thread.latest)!;
          const answer = await json('POST', `/threads/${threadId}/runs/wait`, {
            assistant_id: 'agent',
            input: { messages: [{ type: 'human', content: `run ${step}`.padEnd(rng.chance(0.5) ? 250 : 8, '-') }] },
          });
          expect((answer.messages as Message[]).slice(0, -2)).toEqual(before.messages ?? []);
          const state = await json('GET', `/threads/${threadId}/state`);
          expect(JSON.stringify(state.values)).toBe(answered(answer));
          thread.values.set(state.checkpoint_id, answer);
          thread.latest = state.checkpoint_id;
        } else if (roll < 0.8) {
          happened.copies++;
          const copy = (await json('POST', `/threads/${threadId}/copy`)).thread_id as string;
          model.set(copy, { values: new Map(thread.values), latest: thread.latest });
          await record(copy);
        } else if (roll < 0.87) {
          happened.prunes++;
          await json('POST', '/threads/prune', { thread_ids: [threadId], strategy: 'keep_latest' });
          thread.values = new Map([[thread.latest, thread.values.get(thread.latest)!]]);
        } else if (roll < 0.9 && threadIds.length > 1) {
          happened.deletes++;
          await send('DELETE', `/threads/${threadId}`);
          model.delete(threadId);
          seen.delete(threadId);
          continue;
        } else if (threadIds.length < 4) await newThread();
        if (model.has(threadId)) await record(threadId);
      }

      /** Every read of a thread the model can check: history whole and in pages, and the state at each checkpoint. */
      const readAll = async (read: typeof send, threadId: string) => {
        const texts: string[] = [await read('GET', `/threads/${threadId}/state`)];
        const whole = await read('POST', `/threads/${threadId}/history`, { limit: 1000 });
        texts.push(whole);
        const states = JSON.parse(whole) as { checkpoint_id: string; values: Values }[];
        for (const state of states) texts.push(await read('GET', `/threads/${threadId}/state/${state.checkpoint_id}`));
        for (let i = 0; i < states.length; i += 3) {
          const page = await read('POST', `/threads/${threadId}/history`, {
            limit: 3,
            ...(i > 0 ? { before: states[i - 1]!.checkpoint_id } : {}),
          });
          expect(page).toBe(JSON.stringify(states.slice(i, i + 3)));
        }
        return { texts, states };
      };
      const warm = new Map<string, string[]>();
      for (const [threadId, thread] of model) {
        const { texts, states } = await readAll(send, threadId);
        warm.set(threadId, texts);
        // Each checkpoint the model knows reads as its values, whole.
        for (const state of states) {
          const values = thread.values.get(state.checkpoint_id);
          if (values) expect(JSON.stringify(state.values), `seed ${seed}, checkpoint ${state.checkpoint_id}`).toBe(answered(values));
        }
        expect(states.filter((state) => thread.values.has(state.checkpoint_id)).length).toBe(thread.values.size);
        // What was read right after the thread's last write reads the same after everything since.
        expect(texts[1], `seed ${seed}: the history of ${threadId} changed`).toBe(seen.get(threadId));
      }
      emulator.close();
      const db = new Database(file, { readonly: true });
      for (const manifest of db.prepare("SELECT value_refs FROM checkpoints WHERE value_refs LIKE '[%'").pluck().all() as string[])
        if ((JSON.parse(manifest) as [string, string, unknown][]).some(([, kind, where]) => kind === 'l' && (where as number[]).length > 2))
          happened.listsOfSeveralRanges++;
      db.close();
      const cold = emulatorOn(file);
      for (const [threadId, texts] of warm) {
        const again = await readAll(cold.send, threadId);
        expect(again.texts, `seed ${seed}: a cold read of ${threadId}`).toEqual(texts);
      }
      cold.emulator.close();
    }
    for (const [what, count] of Object.entries(happened)) expect(count, what).toBeGreaterThan(0);
  });

  it('keeps a copy whole when its source is deleted or pruned, and the source when the copy is', async () => {
    const file = path.join(dir, 'copies.db');
    const { emulator, json, send } = emulatorOn(file);
    try {
      const source = (await json('POST', '/threads', {})).thread_id as string;
      for (let i = 0; i < 5; i++)
        await json('POST', `/threads/${source}/runs/wait`, {
          assistant_id: 'agent',
          input: { messages: [{ type: 'human', content: `hello ${i}`.padEnd(200, '.') }] },
        });
      const copies = [];
      for (let i = 0; i < 3; i++) copies.push((await json('POST', `/threads/${source}/copy`)).thread_id as string);
      const historyOf = (threadId: string) => send('POST', `/threads/${threadId}/history`, { limit: 1000 });
      const valuesOf = (text: string) => (JSON.parse(text) as { values: Values }[]).map((state) => state.values);
      const original = valuesOf(await historyOf(source));
      const [deletedSource, prunedSource, written] = copies as [string, string, string];
      // The copies go on on their own: a run on one changes neither the source nor the others.
      await json('POST', `/threads/${written}/runs/wait`, {
        assistant_id: 'agent',
        input: { messages: [{ type: 'human', content: 'only here' }] },
      });
      expect(valuesOf(await historyOf(written)).slice(-original.length)).toEqual(original);
      expect(valuesOf(await historyOf(deletedSource))).toEqual(original);
      // Pruning a copy leaves its source whole; deleting the source leaves every copy whole.
      await json('POST', '/threads/prune', { thread_ids: [prunedSource], strategy: 'keep_latest' });
      expect(valuesOf(await historyOf(source))).toEqual(original);
      expect(valuesOf(await historyOf(prunedSource))).toEqual(original.slice(0, 1));
      await send('DELETE', `/threads/${source}`);
      expect(valuesOf(await historyOf(deletedSource))).toEqual(original);
      expect(valuesOf(await historyOf(prunedSource))).toEqual(original.slice(0, 1));
      const db = new Database(file, { readonly: true });
      expect(db.prepare('SELECT count(*) FROM checkpoint_items WHERE thread_id = ?').pluck().get(source)).toBe(0);
      db.close();
    } finally {
      emulator.close();
    }
  });

  it('deletes the items no checkpoint or run answer names any more, and keeps those they do', async () => {
    const file = path.join(dir, 'collect.db');
    const { emulator, json, send } = emulatorOn(file);
    const items = (threadId: string) => {
      const db = new Database(file, { readonly: true });
      const rows = db
        .prepare("SELECT seq FROM checkpoint_items WHERE thread_id = ? AND channel = 'messages' ORDER BY seq")
        .pluck()
        .all(threadId);
      db.close();
      return rows as number[];
    };
    try {
      const threadId = (await json('POST', '/threads', {})).thread_id as string;
      const runs: string[] = [];
      const answers: string[] = [];
      for (let i = 0; i < 4; i++) {
        answers.push(
          await send('POST', `/threads/${threadId}/runs/wait`, {
            assistant_id: 'agent',
            // Long enough that the conversation is items from the second run on (decision E29).
            input: { messages: [{ type: 'human', content: `question ${i}`.padEnd(1000, '?') }] },
          }),
        );
        runs.push((await json('GET', `/threads/${threadId}/runs?limit=1`))[0].run_id);
      }
      expect(items(threadId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      // A deleted run takes its checkpoints, its answer and the items only they named: its two messages.
      await send('DELETE', `/threads/${threadId}/runs/${runs[3]}`);
      expect(items(threadId)).toEqual([1, 2, 3, 4, 5, 6]);
      // Pruned to its latest checkpoint (that of run 2), the thread keeps the items every remaining
      // run's answer names: each reads as it was answered.
      await json('POST', '/threads/prune', { thread_ids: [threadId], strategy: 'keep_latest' });
      expect(items(threadId)).toEqual([1, 2, 3, 4, 5, 6]);
      for (const [i, runId] of runs.slice(0, 3).entries())
        expect(await send('GET', `/threads/${threadId}/runs/${runId}/join`)).toBe(answers[i]);
      // A run deleted now leaves the items the latest checkpoint still names.
      await send('DELETE', `/threads/${threadId}/runs/${runs[0]}`);
      expect(items(threadId)).toEqual([1, 2, 3, 4, 5, 6]);
      // Replaced and removed messages go once no checkpoint or answer names them.
      await json('POST', `/threads/${threadId}/state`, {
        values: { messages: [{ type: 'remove', id: '__remove_all__' }] },
        as_node: 'agent',
      });
      await send('DELETE', `/threads/${threadId}/runs/${runs[1]}`);
      await send('DELETE', `/threads/${threadId}/runs/${runs[2]}`);
      await json('POST', '/threads/prune', { thread_ids: [threadId], strategy: 'keep_latest' });
      expect(items(threadId)).toEqual([]);
      expect((await json('GET', `/threads/${threadId}/state`)).values).toEqual({ messages: [] });
    } finally {
      emulator.close();
    }
  });

  it('stores each message once: a long thread holds one item per message and manifests of one range', async () => {
    const file = path.join(dir, 'growth.db');
    const { emulator, json } = emulatorOn(file);
    try {
      const threadId = (await json('POST', '/threads', {})).thread_id as string;
      for (let i = 0; i < 150; i++)
        await json('POST', `/threads/${threadId}/runs/wait`, {
          assistant_id: 'agent',
          input: { messages: [{ type: 'human', content: `message ${i}`.padEnd(200, '.') }] },
        });
      const db = new Database(file, { readonly: true });
      expect(db.prepare('SELECT count(*) FROM checkpoint_items WHERE thread_id = ?').pluck().get(threadId)).toBe(300);
      const manifests = db.prepare('SELECT value_refs FROM checkpoints WHERE thread_id = ?').pluck().all(threadId) as string[];
      expect(manifests.length).toBe(450);
      // Every checkpoint's messages are one range of items, whatever the thread's length, once the
      // conversation outgrew what a manifest holds inline.
      const ranges = manifests.filter((manifest) => manifest.startsWith('['));
      expect(ranges.length).toBeGreaterThan(400);
      for (const manifest of ranges) expect(manifest).toMatch(/^\[\["messages","l",\[1,\d+\]\]\]$/);
      // Before that, the short conversation's values are stored whole, as their canonical text (read
      // with one parse, as before E29), and never longer than a list kept inline.
      const whole = manifests.filter((manifest) => !manifest.startsWith('['));
      expect(whole.length).toBeGreaterThan(0);
      for (const manifest of whole) {
        expect(manifest).toBe(canonicalJson(JSON.parse(manifest)));
        expect(manifest.length).toBeLessThan(INLINE_LIST_CHARS + 20);
      }
      // A run's answer names the items too: no copy of the conversation per run.
      const answers = db
        .prepare('SELECT outcome_values FROM runs WHERE thread_id = ? AND outcome_values LIKE ?')
        .pluck()
        .all(threadId, '%"l"%') as string[];
      expect(answers.length).toBeGreaterThan(140);
      expect(Math.max(...answers.map((answer) => answer.length))).toBeLessThan(60);
      db.close();
    } finally {
      emulator.close();
    }
  });
});
