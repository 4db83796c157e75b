// Development and test mode: every event a streamed answer sends is checked against the spec, as
// every JSON answer is. The frames are read back with eventsource-parser, as a client reads them,
// so what is checked is what goes on the wire. The headers are already out when an event is
// wrong: the violation is reported loudly (the test harness fails on it), and the event still sent.
import { createParser } from 'eventsource-parser';
import type { BodySink, StreamedBody } from './streamed-body.js';

export function checkedStream(
  body: StreamedBody,
  checkEvent: (event: unknown) => string | null,
  report: (problem: string) => void,
): StreamedBody {
  return {
    start(sink) {
      const parser = createParser({
        onEvent: ({ event, data, id }) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(data);
          } catch {
            report(`event ${event} carries data that is not JSON: ${data.slice(0, 200)}`);
            return;
          }
          const problem = checkEvent({ event, data: parsed, ...(id === undefined ? {} : { id }) });
          if (problem !== null) report(`event ${event} (id ${id}) is not what the spec says: ${problem}`);
        },
        onError: (error) => report(`the stream is not well-formed: ${error.message}`),
      });
      const checking: BodySink = {
        write(text) {
          const written = sink.write(text);
          if (written) parser.feed(text);
          return written;
        },
        end: () => sink.end(),
        get closed() {
          return sink.closed;
        },
        onClose: (listener) => sink.onClose(listener),
      };
      body.start(checking);
    },
  };
}
