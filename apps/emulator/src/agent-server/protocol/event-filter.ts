// Which events a stream or a subscription selects (ProtocolEventFilter in the spec): by channel,
// by namespace prefix and depth. An event's channel is its method's (`input.requested` and
// `input.answered` are `input`; a named custom event is `custom:<name>`, which a bare `custom`
// selects too). A prefix segment without `:` names a node and matches any of its tasks
// (`review` matches `review:1187efd6-…`).
import type { ProtocolEventFilter } from '@agentplane/agent-server';
import type { KeptEvent } from './protocol-event-store.js';

export type EventSelection = Pick<ProtocolEventFilter, 'channels' | 'namespaces' | 'depth'>;

/** The channel of an event of `method` with `data`. */
export function channelOf(method: string, data: unknown): string {
  if (method === 'input.requested' || method === 'input.answered') return 'input';
  if (method === 'custom') {
    const name = (data as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? `custom:${name}` : 'custom';
  }
  return method;
}

/** A test of kept events by a filter. */
export function selector(filter: EventSelection): (event: Pick<KeptEvent, 'channel' | 'namespace'>) => boolean {
  const channels = new Set(filter.channels);
  const prefixes = filter.namespaces ?? [];
  const { depth } = filter;
  return (event) => {
    const channel = event.channel;
    if (!channels.has(channel) && !(channel.startsWith('custom:') && channels.has('custom'))) return false;
    if (prefixes.length === 0) return true;
    return prefixes.some(
      (prefix) =>
        prefix.length <= event.namespace.length &&
        prefix.every((segment, i) => segmentMatches(segment, event.namespace[i]!)) &&
        (depth === undefined || event.namespace.length - prefix.length <= depth),
    );
  };
}

function segmentMatches(wanted: string, actual: string): boolean {
  if (wanted === actual) return true;
  return !wanted.includes(':') && actual.slice(0, actual.indexOf(':')) === wanted;
}
