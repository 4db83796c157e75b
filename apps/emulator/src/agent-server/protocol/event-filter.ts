// Which events a stream or a subscription selects (ProtocolEventFilter in the spec): the rule is
// the client package's (`filterSelects`), so that the server and a client that picks each of its
// subscriptions' events out of one connection select the same.
import type { ProtocolEventFilter } from '@agentplane/agent-server';
import { filterSelects } from '@agentplane/agent-server';
import type { KeptEvent } from './protocol-event-store.js';

export { protocolChannel as channelOf } from '@agentplane/agent-server';

export type EventSelection = Pick<ProtocolEventFilter, 'channels' | 'namespaces' | 'depth'>;

/** A test of kept events by a filter. */
export function selector(filter: EventSelection): (event: Pick<KeptEvent, 'channel' | 'namespace'>) => boolean {
  return (event) => filterSelects(filter, event.channel, event.namespace);
}
