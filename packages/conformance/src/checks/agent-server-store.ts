// The agent server's store (long-term memory), as stateful scenarios on the run's own items: put,
// get, replace and delete; search by prefix, filter, page and query; the namespaces; the
// refusals. Every item lives under the run's namespace (the run's tag and ID), so a run reads and
// deletes nothing but its own. Each check names the rule it enforces and, where the spec declares
// the LangGraph JS server deliberately differs on that rule, the id of that difference (L5).
import type { StoreSearchItem } from '@agentplane/agent-server';
import type { Verify } from '../verify.js';
import type { AgentServerSession } from './agent-server-session.js';
import { answer } from './agent-server-session.js';
import type { CheckDefinition } from './check.js';

type Check = CheckDefinition<AgentServerSession>;
const check = (definition: Omit<Check, 'api'>): Check => ({ api: 'agent-server', ...definition });

const keys = (items: StoreSearchItem[] | undefined) => (items ?? []).map((item) => item.key);

/** One search of the run's items under `labels`. */
async function search(s: AgentServerSession, labels: string[], body: Record<string, unknown> = {}) {
  return answer(s.client.POST('/store/items/search', { body: { namespace_prefix: s.namespace(...labels), ...body } }));
}

/** The run's namespaces under its `prefix` (the first label names the check's own), as labels below that first label. */
async function namespaces(
  s: AgentServerSession,
  v: Verify,
  body: Record<string, unknown> & { prefix: string[] },
  what: string,
): Promise<string[][]> {
  const listed = await answer(s.client.POST('/store/namespaces', { body: { ...body, prefix: s.namespace(...body.prefix) } }));
  v.equal(listed.status, 200, `${what}: status`);
  return (listed.data?.namespaces ?? []).map((namespace) => namespace.slice(3));
}

export const STORE_CHECKS: Check[] = [
  check({
    id: 'store:put-get-delete',
    area: 'store',
    title: 'a put item reads back; a put at its key replaces it and keeps created_at; a delete leaves null, and can be repeated',
    rule: 'putStoreItem 204, getStoreItem StoreItem or null, deleteStoreItem 204 (decision E22)',
    operations: ['putStoreItem', 'getStoreItem', 'deleteStoreItem'],
    async run(s, v) {
      const namespace = s.namespace('prefs');
      const get = () =>
        answer(s.client.GET('/store/items', { params: { query: { namespace: namespace.join('.'), key: 'food', refresh_ttl: false } } }));
      await s.putItem(v, ['prefs'], 'food', { text: 'Likes ramen' }, { ttl: 60 });
      const first = await get();
      v.equal(
        [first.status, first.data?.namespace, first.data?.key, first.data?.value],
        [200, namespace, 'food', { text: 'Likes ramen' }],
        'the item read back',
      );
      await s.putItem(v, ['prefs'], 'food', { text: 'Likes soba' }, { index: ['text'] });
      const replaced = await get();
      v.equal(
        [replaced.data?.value, replaced.data?.created_at],
        [{ text: 'Likes soba' }, first.data?.created_at],
        'the replaced item (value, created_at)',
      );
      for (const attempt of ['delete', 'second delete']) {
        const deleted = await answer(s.client.DELETE('/store/items', { body: { namespace, key: 'food' } }));
        v.equal(deleted.status, 204, `${attempt}: status`);
      }
      s.forgetItem(namespace, 'food');
      const gone = await get();
      v.equal([gone.status, gone.data ?? null], [200, null], 'a deleted item reads as null');
    },
  }),
  check({
    id: 'store:search-prefix-filter-page',
    area: 'store',
    title: 'search finds the items under a prefix of whole labels, filtered by value fields (operators too), one page at a time',
    rule: 'searchStoreItems: StoreItemSearch namespace_prefix, filter, limit, offset',
    operations: ['putStoreItem', 'searchStoreItems'],
    async run(s, v) {
      await s.putItem(v, ['page', 'u-1'], 'a', { kind: 'fact', n: 1 });
      await s.putItem(v, ['page', 'u-1'], 'b', { kind: 'preference', n: 2 });
      await s.putItem(v, ['page', 'u-1', 'deep'], 'c', { kind: 'fact', n: 3 });
      await s.putItem(v, ['page', 'u-10'], 'd', { kind: 'fact', n: 4 });
      v.equal(keys((await search(s, ['page'])).data?.items), ['a', 'b', 'c', 'd'], 'every item of the run');
      v.equal(keys((await search(s, ['page', 'u-1'])).data?.items), ['a', 'b', 'c'], 'the prefix u-1 (not u-10)');
      v.equal(keys((await search(s, ['page'], { filter: { kind: 'fact' } })).data?.items), ['a', 'c', 'd'], 'filter kind: fact');
      v.equal(keys((await search(s, ['page'], { filter: { n: { $gte: 2, $lt: 4 } } })).data?.items), ['b', 'c'], 'filter n $gte 2 $lt 4');
      v.equal(keys((await search(s, ['page'], { limit: 2, offset: 1 })).data?.items), ['b', 'c'], 'limit 2, offset 1');
      const plain = (await search(s, ['page', 'u-1'], { limit: 1 })).data?.items[0];
      v.that(plain !== undefined && !('score' in plain), 'an item found without a query has no score');
    },
  }),
  check({
    id: 'store:search-filter-deep-equal',
    area: 'store',
    title: 'a filter on a list or an object matches the items whose field deep-equals it',
    rule: 'StoreItemSearch.filter: deep equality',
    operations: ['putStoreItem', 'searchStoreItems'],
    difference: 'store-filter-deep-equal',
    async run(s, v) {
      await s.putItem(v, ['t'], 'tagged', { tags: ['a', 'b'], owner: { id: 7 } });
      await s.putItem(v, ['t'], 'other', { tags: ['a'] });
      v.equal(keys((await search(s, ['t'], { filter: { tags: ['a', 'b'] } })).data?.items), ['tagged'], 'filter tags: [a, b]');
      v.equal(keys((await search(s, ['t'], { filter: { owner: { id: 7 } } })).data?.items), ['tagged'], 'filter owner: {id: 7}');
    },
  }),
  check({
    id: 'store:search-order',
    area: 'store',
    title: 'without a query, items come namespace by namespace in label order, each in the order first stored',
    rule: 'StoreItemSearch.query: without it, namespaces in label order, items in the order first stored',
    operations: ['putStoreItem', 'searchStoreItems'],
    difference: 'store-search-order',
    async run(s, v) {
      await s.putItem(v, ['order', 'y'], 'first', { v: 1 });
      await s.putItem(v, ['order', 'x'], 'second', { v: 2 });
      await s.putItem(v, ['order', 'y'], 'third', { v: 3 });
      v.equal(keys((await search(s, ['order'])).data?.items), ['second', 'first', 'third'], 'the order of the answer');
    },
  }),
  check({
    id: 'store:search-query',
    area: 'store',
    title: 'a query ranks items by the share of its words they hold (a score from 0 to 1), the unindexed last without one',
    rule: 'StoreItemSearch.query, StoreSearchItem.score, StoreItemPut.index',
    operations: ['putStoreItem', 'searchStoreItems'],
    difference: 'store-query-lexical-score',
    async run(s, v) {
      await s.putItem(v, ['m'], 'city', { text: 'Lives in Lisbon' });
      await s.putItem(v, ['m'], 'food', { text: 'Likes spicy food' });
      await s.putItem(v, ['m'], 'hidden', { text: 'spicy food' }, { index: false });
      const found = await search(s, ['m'], { query: 'Spicy food' });
      v.equal(
        (found.data?.items ?? []).map((item) => [item.key, item.score ?? null]),
        [
          ['food', 1],
          ['city', 0],
          ['hidden', null],
        ],
        'keys and scores, in order',
      );
    },
  }),
  check({
    id: 'store:namespaces',
    area: 'store',
    title: 'the namespaces holding items, by prefix (with *), suffix and depth, sorted label by label, one page at a time',
    rule: 'listStoreNamespaces: StoreNamespaceList, StoreNamespaceListResult',
    operations: ['putStoreItem', 'listStoreNamespaces'],
    async run(s, v) {
      for (const labels of [
        ['users', 'u-2', 'notes'],
        ['users', 'u-1', 'memories'],
        ['users', 'u-1', 'notes'],
        ['teams', 't-1'],
      ])
        await s.putItem(v, ['listed', ...labels], 'k', { v: 1 });
      v.equal(
        await namespaces(s, v, { prefix: ['listed'] }, 'all'),
        [
          ['teams', 't-1'],
          ['users', 'u-1', 'memories'],
          ['users', 'u-1', 'notes'],
          ['users', 'u-2', 'notes'],
        ],
        'every namespace of the run, sorted',
      );
      v.equal(
        await namespaces(s, v, { prefix: ['listed'], max_depth: 5 }, 'max_depth'),
        [
          ['teams', 't-1'],
          ['users', 'u-1'],
          ['users', 'u-2'],
        ],
        'cut to five labels',
      );
      v.equal(
        await namespaces(s, v, { prefix: ['listed', 'users', '*', 'notes'] }, 'wildcard'),
        [
          ['users', 'u-1', 'notes'],
          ['users', 'u-2', 'notes'],
        ],
        'the prefix users.*.notes',
      );
      v.equal(
        await namespaces(s, v, { prefix: ['listed'], suffix: ['notes'] }, 'suffix'),
        [
          ['users', 'u-1', 'notes'],
          ['users', 'u-2', 'notes'],
        ],
        'the suffix notes',
      );
      v.equal(
        await namespaces(s, v, { prefix: ['listed'], limit: 2, offset: 1 }, 'page'),
        [
          ['users', 'u-1', 'memories'],
          ['users', 'u-1', 'notes'],
        ],
        'limit 2, offset 1',
      );
    },
  }),
  check({
    id: 'store:namespaces-of-live-items',
    area: 'store',
    title: 'a namespace whose last item was deleted is no longer listed',
    rule: 'StoreNamespaceListResult: namespaces that hold an item',
    operations: ['putStoreItem', 'deleteStoreItem', 'listStoreNamespaces'],
    difference: 'store-namespaces-of-live-items',
    async run(s, v) {
      await s.putItem(v, ['gone'], 'only', { v: 1 });
      const namespace = s.namespace('gone');
      await answer(s.client.DELETE('/store/items', { body: { namespace, key: 'only' } }));
      s.forgetItem(namespace, 'only');
      v.equal(await namespaces(s, v, { prefix: ['gone'] }, 'after the delete'), [], 'namespaces under the emptied one');
    },
  }),
  check({
    id: 'store:refusals',
    area: 'store',
    title: 'an empty namespace label is a 422 HTTPValidationError naming it, and stores nothing',
    rule: 'StoreNamespaceLabel; 422 of putStoreItem and searchStoreItems',
    operations: ['putStoreItem', 'searchStoreItems'],
    difference: 'error-detail-body',
    differenceIn: 'marked findings',
    async run(s, v) {
      const namespace = s.namespace('refused', '');
      for (const [operation, call] of [
        ['putStoreItem', () => s.client.PUT('/store/items', { body: { namespace, key: 'k', value: {} } })],
        ['searchStoreItems', () => s.client.POST('/store/items/search', { body: { namespace_prefix: namespace } })],
      ] as const) {
        const got = await answer<unknown>(call());
        v.equal(got.status, 422, `${operation}: status`);
        const locs = ((got.error as { detail?: { loc?: unknown[] }[] } | undefined)?.detail ?? []).map((item) => item.loc?.join('.'));
        if (got.status === 422)
          v.that(
            locs.some((loc) => loc?.endsWith('.3')),
            `${operation}: an issue at the empty label (${JSON.stringify(locs)})`,
            { differs: true },
          );
      }
      v.equal(keys((await search(s, ['refused'])).data?.items), [], 'nothing stored');
    },
  }),
];
