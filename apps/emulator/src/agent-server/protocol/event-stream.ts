// A thread's protocol events as server-sent events (POST .../stream/events): the events the
// filter selects, kept ones first (after `since`), then the new ones, each framed as `event:
// <method>`, `data: <the event>`, `id: <event_id>`; a comment line keeps a silent stream alive; it
// ends only when the thread is deleted (or the client leaves).
import type { StreamedBody } from '../../http/streamed-body.js';
import type { EventSelection } from './event-filter.js';
import { selector } from './event-filter.js';
import type { ThreadEvents } from './thread-events.js';

/** A comment line, and no blank line after it (a blank line would end an event). */
const HEARTBEAT = ': heartbeat\n';

export function protocolEventStream(options: {
  events: ThreadEvents;
  threadId: string;
  selection: EventSelection;
  /** Only events after this `seq`; all kept when undefined. */
  since: number | undefined;
  heartbeatMs: number;
}): StreamedBody {
  return {
    start(sink) {
      const heartbeat = setInterval(() => sink.write(HEARTBEAT), options.heartbeatMs);
      heartbeat.unref();
      const unfollow = options.events.follow(options.threadId, options.since, {
        selects: selector(options.selection),
        send(event) {
          sink.write(`event: ${event.method}\ndata: ${event.json}\nid: ${event.eventId}\n\n`);
          heartbeat.refresh();
        },
        gone() {
          clearInterval(heartbeat);
          sink.end();
        },
      });
      sink.onClose(() => {
        clearInterval(heartbeat);
        unfollow();
      });
    },
  };
}

/** The `seq` an event ID names (`12`, or `synth:<run_id>:12`); undefined for anything else. */
export function seqOfEventId(eventId: string | undefined): number | undefined {
  const match = /^(?:synth:[^:]+:)?(\d{1,16})$/.exec(eventId?.trim() ?? '');
  return match ? Number(match[1]) : undefined;
}
