// A WebSocket a handler answers a request with (a 101), as the HTTP core hands it to the node:http
// adapter, the only one with a socket to upgrade (in process there is none: the handler answers
// 426 there). Like a streamed body (streamed-body.ts), it is transport-neutral: the adapter
// completes the handshake and gives the session a peer to send on; the session is told each
// message the client sends and when the connection is gone.

/** The connection's far end, as a session sends on it. */
export interface SocketPeer {
  /** Sends one text message; nothing once the connection is closed. */
  send(text: string): void;
  /** Closes the connection with a code (4000 + an HTTP status for a final refusal) and a reason. */
  close(code: number, reason: string): void;
}

/** What a session is told once the connection is open. */
export interface SocketListener {
  /** A text message from the client (binary ones are read as UTF-8). */
  message(text: string): void;
  /** The connection closed, from either end: nothing more is sent or received. */
  closed(): void;
}

export interface SocketSession {
  open(peer: SocketPeer): SocketListener;
}

/** Development and test mode: every message the session sends is checked, and a violation reported (and still sent). */
export function checkedSocket(
  session: SocketSession,
  check: (message: unknown) => string | null,
  report: (problem: string) => void,
): SocketSession {
  return {
    open(peer) {
      return session.open({
        send(text) {
          let problem: string | null;
          try {
            problem = check(JSON.parse(text));
          } catch {
            problem = 'not JSON';
          }
          if (problem !== null) report(`a WebSocket message is not what the spec says: ${problem}: ${text.slice(0, 300)}`);
          peer.send(text);
        },
        close: (code, reason) => peer.close(code, reason),
      });
    },
  };
}
