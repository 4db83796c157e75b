// What apps do with the store (the LangGraph SDK's `client.store`: long-term memories kept across
// threads) and crons, as scenarios that run the same on any agent server. The differential test
// runs them on the emulator and on the real LangGraph JS server and compares what they observed.
// The server's store is shared by every scenario of a run: each keeps to the namespaces under its
// own tag, so that what another scenario stored never shows.
import type { Client } from '@langchain/langgraph-sdk';
import type { Scenario } from './langgraph-scenarios.js';

/** What a call answered, or the status it failed with (the SDK throws its HTTP errors). */
const outcome = (call: Promise<unknown>) =>
  call.then(
    (answer) => ({ answer: answer ?? null }),
    (error: { status?: number }) => ({ failedWith: error.status }),
  );

const keys = (result: { items: { key: string }[] }) => result.items.map((item) => item.key);

/** Puts items in order: [namespace under the tag, key, value]. */
async function putAll(client: Client, tag: string, items: [string[], string, Record<string, unknown>][]): Promise<void> {
  for (const [namespace, key, value] of items) await client.store.putItem([tag, ...namespace], key, value);
}

export const STORE_SCENARIOS: Record<string, Scenario> = {
  'store put, get, replace and delete': async (client, tag) => {
    await client.store.putItem([tag, 'prefs'], 'food', { text: 'Likes ramen', kind: 'preference' });
    const first = await client.store.getItem([tag, 'prefs'], 'food');
    await client.store.putItem([tag, 'prefs'], 'food', { text: 'Likes soba' });
    const replaced = await client.store.getItem([tag, 'prefs'], 'food');
    await client.store.deleteItem([tag, 'prefs'], 'food');
    const deleted = await client.store.getItem([tag, 'prefs'], 'food');
    await client.store.deleteItem([tag, 'prefs'], 'food');
    return { first, replaced, createdKept: replaced?.createdAt === first?.createdAt, deleted };
  },
  'store get of a missing item': (client, tag) => client.store.getItem([tag, 'nothing'], 'here'),
  'store put with a ttl and an index': async (client, tag) => {
    await client.store.putItem([tag, 'notes'], 'today', { text: 'Refund asked' }, { ttl: 60, index: ['text'] });
    await client.store.putItem([tag, 'notes'], 'hidden', { text: 'Not indexed' }, { index: false });
    return {
      item: await client.store.getItem([tag, 'notes'], 'today', { refreshTtl: true }),
      listed: keys(await client.store.searchItems([tag, 'notes'], { refreshTtl: false })),
    };
  },
  'store search by prefix, filter and page': async (client, tag) => {
    await putAll(client, tag, [
      [['u-1'], 'a', { kind: 'fact', n: 1 }],
      [['u-1'], 'b', { kind: 'preference', n: 2 }],
      [['u-1', 'deep'], 'c', { kind: 'fact', n: 3 }],
      [['u-2'], 'd', { kind: 'fact', n: 4 }],
    ]);
    return {
      all: await client.store.searchItems([tag]),
      underU1: keys(await client.store.searchItems([tag, 'u-1'])),
      facts: keys(await client.store.searchItems([tag], { filter: { kind: 'fact' } })),
      byNumber: keys(await client.store.searchItems([tag], { filter: { n: 3 } })),
      operators: keys(await client.store.searchItems([tag], { filter: { n: { $gte: 2, $lt: 4 } } })),
      page: keys(await client.store.searchItems([tag], { limit: 2, offset: 1 })),
      pastTheEnd: keys(await client.store.searchItems([tag], { offset: 10 })),
    };
  },
  'store search across namespaces stored in turn': async (client, tag) => {
    await putAll(client, tag, [
      [['y'], 'first', { v: 1 }],
      [['x'], 'second', { v: 2 }],
      [['y'], 'third', { v: 3 }],
    ]);
    return keys(await client.store.searchItems([tag]));
  },
  'store search by query': async (client, tag) => {
    await putAll(client, tag, [
      [['m'], 'city', { text: 'Lives in Lisbon' }],
      [['m'], 'food', { text: 'Likes spicy food' }],
    ]);
    return (await client.store.searchItems([tag, 'm'], { query: 'spicy food' })).items.map((item) => ({
      key: item.key,
      score: item.score,
    }));
  },
  'store search prefix of whole labels': async (client, tag) => {
    await putAll(client, tag, [
      [['users'], 'a', { v: 1 }],
      [['users-archive'], 'b', { v: 2 }],
    ]);
    return keys(await client.store.searchItems([tag, 'users']));
  },
  'store filter on a list': async (client, tag) => {
    await putAll(client, tag, [[['t'], 'tagged', { tags: ['a', 'b'] }]]);
    return keys(await client.store.searchItems([tag], { filter: { tags: ['a', 'b'] } }));
  },
  'store list namespaces': async (client, tag) => {
    await putAll(client, tag, [
      [['users', 'u-2', 'notes'], 'k', { v: 1 }],
      [['users', 'u-1', 'memories'], 'k', { v: 1 }],
      [['users', 'u-1', 'notes'], 'k', { v: 1 }],
      [['teams', 't-1'], 'k', { v: 1 }],
    ]);
    return {
      all: (await client.store.listNamespaces({ prefix: [tag] })).namespaces,
      depth2: (await client.store.listNamespaces({ prefix: [tag], maxDepth: 2 })).namespaces,
      wildcard: (await client.store.listNamespaces({ prefix: [tag, 'users', '*', 'notes'] })).namespaces,
      suffix: (await client.store.listNamespaces({ prefix: [tag], suffix: ['notes'] })).namespaces,
      page: (await client.store.listNamespaces({ prefix: [tag], limit: 2, offset: 1 })).namespaces,
    };
  },
  'store namespaces after their last item is deleted': async (client, tag) => {
    await putAll(client, tag, [[['gone'], 'only', { v: 1 }]]);
    await client.store.deleteItem([tag, 'gone'], 'only');
    return (await client.store.listNamespaces({ prefix: [tag] })).namespaces;
  },
  'store refuses an empty label': (client, tag) =>
    Promise.all([
      outcome(client.store.putItem([tag, ''], 'k', { v: 1 })),
      outcome(client.store.searchItems([tag, ''])),
      outcome(client.store.listNamespaces({ prefix: [tag, ''] })),
    ]),
  // The LangGraph JS server serves no cron operation: the emulator is compared with the SDK's
  // types and the public API's description instead (test/crons.test.ts, the conformance checks).
  'crons are served': (client) => outcome(client.crons.count()),
};
