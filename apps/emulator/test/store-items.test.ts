// The store (client.store of the LangGraph SDK) against the emulator in process: every method of
// the JS SDK's StoreClient, the bodies the Python SDK's StoreClient sends (it cannot run here, so
// its requests are sent as it builds them), times to live on a moved clock, the lexical `query`
// score, and the in-process API a graph step calls (ItemStore), which answers as the HTTP
// operations do because they call it.
import type { Client } from '@langchain/langgraph-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { searchSql } from '../src/agent-server/store-items/item-store.js';
import { indexedText, lexicalScore, wordsOf } from '../src/agent-server/store-items/lexical-score.js';
import type { Emulator } from '../src/emulator.js';
import { createEmulator } from '../src/emulator.js';
import { openDatabase } from '../src/store/database.js';
import { planSteps } from './support/query-plan.js';
import { inProcessClient, inProcessRequest } from './support/sdk-client.js';

const MINUTE = 60_000;
let emulator: Emulator;
let client: Client;
let clock: number;
let errors: string[];

/** A request as the Python SDK sends it (httpx: JSON bodies, booleans in the query as `true`/`false`). */
const send = (method: string, path: string, body?: unknown) => inProcessRequest(emulator, method, path, body);

beforeEach(() => {
  clock = Date.parse('2026-03-02T09:00:00Z');
  errors = [];
  emulator = createEmulator({ now: () => clock, onError: (message) => errors.push(message) });
  client = inProcessClient(emulator);
});
afterEach(() => {
  emulator.close();
  expect(errors).toEqual([]);
});

describe('the JS SDK StoreClient', () => {
  it('puts, gets, replaces and deletes an item', async () => {
    await client.store.putItem(['users', 'u-42'], 'food', { text: 'Likes ramen' });
    const first = await client.store.getItem(['users', 'u-42'], 'food');
    expect(first).toMatchObject({
      namespace: ['users', 'u-42'],
      key: 'food',
      value: { text: 'Likes ramen' },
      created_at: '2026-03-02T09:00:00.000Z',
    });
    clock += MINUTE;
    await client.store.putItem(['users', 'u-42'], 'food', { text: 'Likes soba' });
    const replaced = await client.store.getItem(['users', 'u-42'], 'food');
    expect(replaced).toMatchObject({
      value: { text: 'Likes soba' },
      created_at: first!.createdAt,
      updated_at: '2026-03-02T09:01:00.000Z',
    });
    await client.store.deleteItem(['users', 'u-42'], 'food');
    expect(await client.store.getItem(['users', 'u-42'], 'food')).toBeNull();
    // A delete of nothing is a 204 too.
    await client.store.deleteItem(['users', 'u-42'], 'food');
  });

  it('searches by namespace prefix (whole labels), filter and page: namespaces in label order, items in the order first stored', async () => {
    await client.store.putItem(['users', 'u-1'], 'a', { kind: 'fact', n: 1, tags: ['x'] });
    await client.store.putItem(['users-archive'], 'b', { kind: 'fact', n: 2 });
    await client.store.putItem(['users', 'u-2'], 'c', { kind: 'preference', n: 3 });
    await client.store.putItem(['users', 'u-1'], 'd', { kind: 'fact', n: 4 });
    const keys = (result: { items: { key: string }[] }) => result.items.map((item) => item.key);
    expect(keys(await client.store.searchItems(['users']))).toEqual(['a', 'd', 'c']);
    expect(keys(await client.store.searchItems([]))).toEqual(['a', 'd', 'c', 'b']);
    expect(keys(await client.store.searchItems(['users'], { filter: { kind: 'fact' } }))).toEqual(['a', 'd']);
    expect(keys(await client.store.searchItems([], { filter: { tags: ['x'] } }))).toEqual(['a']);
    expect(keys(await client.store.searchItems([], { filter: { n: { $gt: 1, $lte: 3 } } }))).toEqual(['c', 'b']);
    expect(keys(await client.store.searchItems([], { filter: { kind: { $ne: 'fact' } } }))).toEqual(['c']);
    expect(keys(await client.store.searchItems([], { filter: { n: { $in: [1, 4] } } }))).toEqual(['a', 'd']);
    expect(keys(await client.store.searchItems([], { limit: 2, offset: 1 }))).toEqual(['d', 'c']);
    expect(keys(await client.store.searchItems([], { filter: { kind: 'fact' }, limit: 1, offset: 1 }))).toEqual(['d']);
    // No score without a query.
    expect((await client.store.searchItems(['users'])).items[0]).not.toHaveProperty('score');
  });

  it('filters on any field name, whether SQLite compares it or JavaScript does', async () => {
    await client.store.putItem(['f'], 'odd', { 'a"b': 1, 'x.y': 'dot', '': true, 'tab\tkey': null, 'é clé': 2.5 });
    await client.store.putItem(['f'], 'other', { 'a"b': 2, 'x.y': 'no' });
    for (const filter of [{ 'a"b': 1 }, { 'x.y': 'dot' }, { '': true }, { 'tab\tkey': null }, { 'é clé': 2.5 }])
      expect(
        (await client.store.searchItems(['f'], { filter })).items.map((item) => item.key),
        JSON.stringify(filter),
      ).toEqual(['odd']);
    // A number is not its text, a boolean not 1, null not absent.
    for (const filter of [{ 'x.y': 0 }, { 'é clé': '2.5' }, { '': 1 }, { missing: null }])
      expect((await client.store.searchItems(['f'], { filter })).items, JSON.stringify(filter)).toEqual([]);
  });

  it('ranks by the lexical score of the query, the unindexed last without a score', async () => {
    await client.store.putItem(['m'], 'ramen', { text: 'Likes spicy ramen', kind: 'food' });
    await client.store.putItem(['m'], 'city', { text: 'Lives in Lisbon' });
    await client.store.putItem(['m'], 'both', { text: 'Spicy food in Lisbon' }, { index: ['text'] });
    await client.store.putItem(['m'], 'hidden', { text: 'spicy food' }, { index: false });
    const { items } = await client.store.searchItems(['m'], { query: 'Spicy FOOD' });
    expect(items.map((item) => [item.key, item.score])).toEqual([
      ['ramen', 1],
      ['both', 1],
      ['city', 0],
      ['hidden', undefined],
    ]);
  });

  it('lists namespaces by prefix and suffix with wildcards, cut to a depth, sorted label by label', async () => {
    for (const namespace of [
      ['users', 'u-2', 'notes'],
      ['users', 'u-1', 'memories'],
      ['users', 'u-1', 'notes'],
      ['teams', 't-1'],
      ['users-b'],
    ])
      await client.store.putItem(namespace, 'k', { v: 1 });
    expect((await client.store.listNamespaces()).namespaces).toEqual([
      ['teams', 't-1'],
      ['users', 'u-1', 'memories'],
      ['users', 'u-1', 'notes'],
      ['users', 'u-2', 'notes'],
      ['users-b'],
    ]);
    expect((await client.store.listNamespaces({ prefix: ['users'], maxDepth: 2 })).namespaces).toEqual([
      ['users', 'u-1'],
      ['users', 'u-2'],
    ]);
    expect((await client.store.listNamespaces({ prefix: ['users', '*', 'notes'] })).namespaces).toEqual([
      ['users', 'u-1', 'notes'],
      ['users', 'u-2', 'notes'],
    ]);
    expect((await client.store.listNamespaces({ suffix: ['notes'], limit: 1, offset: 1 })).namespaces).toEqual([['users', 'u-2', 'notes']]);
    // A namespace whose last item is deleted is no longer listed.
    await client.store.deleteItem(['teams', 't-1'], 'k');
    expect((await client.store.listNamespaces({ prefix: ['teams'] })).namespaces).toEqual([]);
  });

  it('refuses an empty label or one with a period with a 422 naming it', async () => {
    const put = await send('PUT', '/store/items', { namespace: ['users', ''], key: 'k', value: {} });
    expect(put.status).toBe(422);
    expect(put.body.detail[0].loc).toEqual(['body', 'namespace', 1]);
    const search = await send('POST', '/store/items/search', { namespace_prefix: ['a.b'] });
    expect(search.body.detail[0].loc).toEqual(['body', 'namespace_prefix', 0]);
    expect((await send('POST', '/store/namespaces', { max_depth: 0 })).status).toBe(422);
  });
});

describe('times to live on the emulator clock', () => {
  it('deletes an item when its ttl runs out, and a read with refresh_ttl restarts it', async () => {
    await client.store.putItem(['s'], 'short', { v: 1 }, { ttl: 10 });
    await client.store.putItem(['s'], 'forever', { v: 2 });
    clock += 9 * MINUTE;
    expect(await client.store.getItem(['s'], 'short')).not.toBeNull();
    clock += 9 * MINUTE;
    // Read at minute 9, so it lives until minute 19.
    expect(await client.store.getItem(['s'], 'short', { refreshTtl: false })).not.toBeNull();
    clock += 2 * MINUTE;
    expect(await client.store.getItem(['s'], 'short')).toBeNull();
    expect((await client.store.searchItems(['s'])).items.map((item) => item.key)).toEqual(['forever']);
  });

  it('a search refreshes the items it answers, unless refresh_ttl is false', async () => {
    await client.store.putItem(['s'], 'a', { v: 1 }, { ttl: 5 });
    await client.store.putItem(['s'], 'b', { v: 2 }, { ttl: 5 });
    clock += 4 * MINUTE;
    await client.store.searchItems(['s'], { limit: 1 });
    await client.store.searchItems(['s'], { refreshTtl: false });
    clock += 2 * MINUTE;
    expect((await client.store.searchItems(['s'])).items.map((item) => item.key)).toEqual(['a']);
  });
});

describe('the Python SDK StoreClient, as it sends its requests', () => {
  it('put_item, get_item (refresh_ttl in the query), search_items, list_namespaces, delete_item', async () => {
    // put_item drops the arguments left None (_provided_vals).
    expect((await send('PUT', '/store/items', { namespace: ['docs', 'u1'], key: 'i1', value: { title: 'Doc' }, ttl: 30 })).status).toBe(
      204,
    );
    expect(
      (await send('PUT', '/store/items', { namespace: ['docs', 'u1'], key: 'i2', value: { title: 'Other' }, index: ['title'] })).status,
    ).toBe(204);
    const got = await send('GET', '/store/items?key=i1&namespace=docs.u1&refresh_ttl=false');
    expect(got).toMatchObject({ status: 200, body: { namespace: ['docs', 'u1'], key: 'i1', value: { title: 'Doc' } } });
    expect((await send('GET', '/store/items?key=missing&namespace=docs.u1')).body).toBeNull();
    const search = await send('POST', '/store/items/search', {
      namespace_prefix: ['docs'],
      filter: { title: 'Other' },
      limit: 10,
      offset: 0,
      refresh_ttl: true,
    });
    expect(search.body.items.map((item: any) => item.key)).toEqual(['i2']);
    const listed = await send('POST', '/store/namespaces', { prefix: ['docs'], max_depth: 3, limit: 100, offset: 0 });
    expect(listed.body).toEqual({ namespaces: [['docs', 'u1']] });
    expect((await send('DELETE', '/store/items', { key: 'i1', namespace: ['docs', 'u1'] })).status).toBe(204);
    expect((await send('GET', '/store/items?key=i1&namespace=docs.u1')).body).toBeNull();
  });
});

describe('the lexical score', () => {
  it('is the share of the query words the text has, words in any script, case ignored', () => {
    expect(lexicalScore(wordsOf('Crème brûlée, café!'), 'CAFÉ and crème')).toBe(2 / 3);
    expect(lexicalScore(wordsOf('東京 ramen'), 'ramen in 東京')).toBe(1);
    expect(lexicalScore(wordsOf('...'), 'anything')).toBeUndefined();
  });

  it('reads the whole value, the listed paths, or nothing', () => {
    const value = { title: 'Trip', profile: { bio: 'Loves hiking' }, tags: ['alps', 3] };
    expect(indexedText(value, null)).toBe('Trip Loves hiking alps');
    expect(indexedText(value, ['profile.bio', 'missing'])).toBe('Loves hiking');
    expect(indexedText(value, false)).toBeUndefined();
  });
});

describe('how SQLite reads a search', () => {
  const plan = (request: Parameters<typeof searchSql>[0], ranked = false) => {
    const db = openDatabase(':memory:');
    const { sql, parameters } = searchSql(request, ranked);
    const steps = planSteps(db, sql, parameters);
    db.close();
    return steps;
  };

  it("pages a prefix's items along the namespace index, with no sort, whatever the page's bounds", () => {
    for (const page of [{}, { limit: 10, offset: 0 }, { limit: 1000, offset: 20_000 }]) {
      const steps = plan({ namespace_prefix: ['bench', 'users', 'u-1'], ...page });
      expect(steps).toContain('SEARCH store_items USING INDEX store_items_in_order (namespace>? AND namespace<?)');
      expect(steps.filter((step) => step.includes('TEMP B-TREE'))).toEqual([]);
    }
  });

  it('reads the matches of a filter SQLite compares in the same order, and all of them for a query to rank', () => {
    const filtered = plan({ namespace_prefix: ['bench'], filter: { kind: 'fact' }, limit: 10, offset: 20 });
    expect(filtered).toContain('SEARCH store_items USING INDEX store_items_in_order (namespace>? AND namespace<?)');
    expect(filtered.filter((step) => step.includes('TEMP B-TREE'))).toEqual([]);
    const ranked = plan({ namespace_prefix: ['bench'], query: 'ramen', limit: 10 }, true);
    expect(ranked).toContain('SEARCH store_items USING INDEX store_items_in_order (namespace>? AND namespace<?)');
    expect(ranked.filter((step) => step.includes('TEMP B-TREE'))).toEqual([]);
  });
});
