// The store operations of the agent server API. Requests arrive validated (namespace labels, key,
// bounds); the semantics are the item store's (item-store.ts), which a graph step can call too.
import type { AgentServerHandlers } from '../handler-map.js';
import type { ItemStore } from './item-store.js';

export function storeItemHandlers(items: ItemStore) {
  return {
    putStoreItem({ body }) {
      items.put(body);
      return { status: 204 as const };
    },

    getStoreItem({ query }) {
      // The SDKs join the labels with periods, which no label holds; absent or empty is the empty namespace.
      const namespace = query.namespace ? query.namespace.split('.') : [];
      const item = namespace.length === 0 ? null : items.getText(namespace, query.key, { refreshTtl: query.refresh_ttl });
      return { status: 200, body: item };
    },

    deleteStoreItem({ body }) {
      items.delete(body.namespace, body.key);
      return { status: 204 as const };
    },

    searchStoreItems({ body }) {
      return { status: 200, body: items.searchText(body) };
    },

    listStoreNamespaces({ body }) {
      return { status: 200, body: items.listNamespaces(body) };
    },
  } satisfies Partial<AgentServerHandlers>;
}
