// The assistant store: what `resolve` (the run engine's way to an assistant) reads for each way of
// naming one, the graphs' default assistants across restarts on the same file (decision E19), and
// a delete leaving no row of the assistant or its versions in the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentServerClient } from '@agentplane/agent-server';
import { createAgentServerClient } from '@agentplane/agent-server';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { AssistantStore, defaultAssistantId } from '../src/agent-server/assistants/assistant-store.js';
import { GraphRegistry } from '../src/agent-server/graphs/scripted-graph.js';
import type { Emulator } from '../src/emulator.js';
import { createEmulator } from '../src/emulator.js';
import { CommitGroup } from '../src/store/commit-group.js';
import { openDatabase } from '../src/store/database.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-assistants-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const graph = { replies: [{ text: 'ok' }] };

function storeWith(graphIds: string[]) {
  const db = openDatabase(':memory:');
  const commits = new CommitGroup(db, (message) => {
    throw new Error(message);
  });
  const store = new AssistantStore(db, commits, new GraphRegistry(Object.fromEntries(graphIds.map((id) => [id, graph]))));
  commits.transaction(() => store.ensureDefaults('2026-11-19T09:00:00.000Z'));
  return {
    db,
    store,
    commits,
    close: () => {
      commits.commit();
      db.close();
    },
  };
}

describe('resolve', () => {
  it('reads an assistant by its ID in any UUID form, or a served graph ID as its default assistant', () => {
    const { store, commits, close } = storeWith(['support']);
    const id = '2f9c4e1a-7b3d-4c8e-9a6f-1d2e3c4b5a69';
    const fields = { graph_id: 'support', config: {}, context: { region: 'eu' }, metadata: {}, name: 'Refunds', description: null };
    commits.transaction(() => store.insert(id, fields, '2026-11-19T10:00:00.000Z'));
    const created = store.resolve(id);
    expect(created).toEqual({
      assistant_id: id,
      ...fields,
      version: 1,
      created_at: '2026-11-19T10:00:00.000Z',
      updated_at: '2026-11-19T10:00:00.000Z',
    });
    expect(store.resolve(id.toUpperCase())).toEqual(created);
    expect(store.resolve(`urn:uuid:${id}`)).toEqual(created);
    expect(store.resolve('support')).toMatchObject({
      assistant_id: 'a76bea17-1a15-53a6-bfc6-e12c619f641d',
      graph_id: 'support',
      name: 'support',
      metadata: { created_by: 'system' },
      version: 1,
    });
    expect(store.resolve('billing')).toBeUndefined();
    expect(store.resolve(defaultAssistantId('billing'))).toBeUndefined();
    expect(store.resolve('0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50')).toBeUndefined();
    close();
  });

  it('reads the current version, after an update and after setting an earlier one', () => {
    const { store, commits, close } = storeWith(['support', 'billing']);
    const current = store.resolve('support')!;
    commits.transaction(() =>
      store.addVersion(current.assistant_id, { ...current, graph_id: 'billing', config: { configurable: { model: 'b' } } }, 'later'),
    );
    expect(store.resolve('support')).toMatchObject({ version: 2, graph_id: 'billing', config: { configurable: { model: 'b' } } });
    commits.transaction(() => store.setCurrentVersion(current.assistant_id, 1, 'later still'));
    expect(store.resolve('support')).toMatchObject({ version: 1, graph_id: 'support', config: {}, updated_at: 'later still' });
    close();
  });

  // The store keeps the rows it read (every run reads its assistant); these are the ways they could go stale.
  it('reads what is committed, whatever it read before: a write in the open group, a write rolled back, a group lost', () => {
    const { db, store, commits, close } = storeWith(['support']);
    const id = store.resolve('support')!.assistant_id;
    const update = (model: string) => store.addVersion(id, { ...store.get(id)!, config: { configurable: { model } } }, model);
    const model = () => (store.get(id)!.config.configurable as { model?: string } | undefined)?.model;
    expect(model()).toBeUndefined();
    commits.commit();
    expect(model()).toBeUndefined(); // read with nothing open: kept from here

    commits.transaction(() => update('a'));
    expect(model()).toBe('a'); // the open group's own write is seen before it commits
    commits.commit();
    expect(model()).toBe('a');

    // A request's write undone by its savepoint, inside a group that then commits.
    expect(() =>
      commits.transaction(() => {
        update('undone');
        expect(model()).toBe('undone');
        throw new Error('the request fails after writing');
      }),
    ).toThrow('the request fails');
    expect(model()).toBe('a');
    commits.commit();
    expect(model()).toBe('a');

    // A group whose COMMIT fails (a deferred foreign key it broke) keeps nothing: the next read is the file's.
    commits.transaction(() => {
      update('lost');
      db.pragma('defer_foreign_keys = ON');
      db.prepare("INSERT INTO assistant_versions VALUES ('no such assistant', 1, 'support', '{}', '{}', '{}', 'x', NULL, 'now')").run();
    });
    expect(model()).toBe('lost');
    expect(() => commits.commit()).toThrow('could not be committed');
    expect(model()).toBe('a');

    // Each read is an object of the caller's own.
    const read = store.get(id)!;
    (read.config as { configurable: { model: string } }).configurable.model = 'changed by a caller';
    expect(model()).toBe('a');
    close();
  });
});

describe('default assistants across restarts on the same file', () => {
  const file = path.join(dir, 'restarts.db');
  let emulator: Emulator;
  let agent: AgentServerClient;
  const start = (graphIds: string[]) => {
    emulator = createEmulator({ db: file, graphs: Object.fromEntries(graphIds.map((id) => [id, graph])), validateResponses: true });
    agent = createAgentServerClient({ baseUrl: emulator.agentServer.url, fetch: emulator.agentServer.fetch, retry: false });
  };
  const defaults = async () =>
    (
      (await agent.POST('/assistants/search', { body: { metadata: { created_by: 'system' }, sort_by: 'name', sort_order: 'asc' } })).data ??
      []
    ).map((a) => [a.name, a.version]);

  it('keeps a served graph default as it was left, removes those of graphs no longer served, and makes the missing ones', async () => {
    start(['support', 'billing', 'returns']);
    await agent.PATCH('/assistants/{assistant_id}', { params: { path: { assistant_id: 'support' } }, body: { name: 'support' } });
    const mine = (await agent.POST('/assistants', { body: { graph_id: 'billing', name: 'Mine' } })).data!;
    await agent.DELETE('/assistants/{assistant_id}', { params: { path: { assistant_id: 'returns' } } });
    expect(await defaults()).toEqual([
      ['billing', 1],
      ['support', 2],
    ]);
    emulator.close();

    start(['support', 'returns', 'shipping']);
    // support: kept at version 2; billing: gone; returns: deleted before, made again; shipping: new.
    expect(await defaults()).toEqual([
      ['returns', 1],
      ['shipping', 1],
      ['support', 2],
    ]);
    expect(
      (await agent.GET('/assistants/{assistant_id}', { params: { path: { assistant_id: defaultAssistantId('billing') } } })).response
        .status,
    ).toBe(404);
    // An assistant a client made stays, and says its graph is no longer served wherever the graph is needed.
    const path = { assistant_id: mine.assistant_id };
    expect((await agent.GET('/assistants/{assistant_id}', { params: { path } })).data).toEqual(mine);
    const graph = await agent.GET('/assistants/{assistant_id}/graph', { params: { path } });
    expect([graph.response.status, graph.error]).toEqual([404, { detail: 'Graph "billing" not found.' }]);
    expect((await agent.GET('/assistants/{assistant_id}/schemas', { params: { path } })).response.status).toBe(404);
    // A client cannot make a new assistant of it, nor move one to it.
    expect((await agent.POST('/assistants', { body: { graph_id: 'billing' } })).response.status).toBe(404);
    expect((await agent.PATCH('/assistants/{assistant_id}', { params: { path }, body: { graph_id: 'billing' } })).response.status).toBe(
      404,
    );
    emulator.close();

    const raw = new Database(file, { readonly: true });
    const billing = defaultAssistantId('billing');
    const rows = (table: string) => raw.prepare(`SELECT count(*) FROM ${table} WHERE assistant_id = ?`).pluck().get(billing);
    expect([rows('assistants'), rows('assistant_versions')]).toEqual([0, 0]);
    raw.close();
  });
});

describe('deleting', () => {
  it('leaves no row of the assistant or any of its versions in the file', async () => {
    const file = path.join(dir, 'delete.db');
    const emulator = createEmulator({ db: file, validateResponses: true });
    const agent = createAgentServerClient({ baseUrl: emulator.agentServer.url, fetch: emulator.agentServer.fetch, retry: false });
    const { assistant_id } = (await agent.POST('/assistants', { body: { graph_id: 'agent' } })).data!;
    await agent.PATCH('/assistants/{assistant_id}', { params: { path: { assistant_id } }, body: { name: 'Second' } });
    expect((await agent.DELETE('/assistants/{assistant_id}', { params: { path: { assistant_id } } })).response.status).toBe(204);
    emulator.close();
    const raw = new Database(file, { readonly: true });
    const rows = (table: string) => raw.prepare(`SELECT count(*) FROM ${table} WHERE assistant_id = ?`).pluck().get(assistant_id);
    expect([rows('assistants'), rows('assistant_versions')]).toEqual([0, 0]);
    // The default assistant of the default graph, agent, is still there.
    expect(raw.prepare('SELECT count(*) FROM assistants').pluck().get()).toBe(1);
    raw.close();
  });
});
