// A body written while the response is open (a run's server-sent events), as the HTTP core hands it
// to either adapter (node:http, fetch): the handler answers status and headers at once and a
// `StreamedBody`; once the headers are sent, the adapter calls `start` with a sink for the bytes.
//
// The sink is the only way to the wire, and it refuses writes once the response ended or the
// client went away: nothing is ever written after the end, whatever the producer does.

export interface BodySink {
  /** Sends text now; false, and nothing sent, once the response is over. */
  write(text: string): boolean;
  /** Ends the response (once; later calls do nothing). */
  end(): void;
  /** Whether the response is over: ended by the producer, or the client went away. */
  readonly closed: boolean;
  /** Called once if the client goes away before `end` (never after it). */
  onClose(listener: () => void): void;
}

export interface StreamedBody {
  start(sink: BodySink): void;
}

/** What an adapter provides to make a sink: how to send, how to finish, and its close signal. */
export interface WireEnds {
  send(text: string): void;
  finish(): void;
  /** Registers the adapter's own "the client went away" notification. */
  whenGone(listener: () => void): void;
}

/** The sink over an adapter's ends, guarding against writes after the end and double ends. */
export function createBodySink(ends: WireEnds): BodySink {
  let closed = false;
  const closeListeners: (() => void)[] = [];
  ends.whenGone(() => {
    if (closed) return;
    closed = true;
    for (const listener of closeListeners.splice(0)) listener();
  });
  return {
    write(text) {
      if (closed) return false;
      ends.send(text);
      return true;
    },
    end() {
      if (closed) return;
      closed = true;
      closeListeners.length = 0;
      ends.finish();
    },
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (!closed) closeListeners.push(listener);
    },
  };
}
