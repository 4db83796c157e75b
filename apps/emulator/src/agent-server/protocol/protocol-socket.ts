// The protocol over a thread's WebSocket (GET .../stream/events with an upgrade): every command of
// the HTTP side (protocol-commands.ts), plus the connection's subscriptions. A subscription follows
// the thread's events as a stream does: it replays the kept ones it selects (after its `since`),
// then the new ones come; a new event several subscriptions select is sent once (the client
// hands it to each subscription that selects it). A message that is not a
// command is answered with an error whose `id` is null (or the message's, when it has one), and
// the connection stays open. When the thread is deleted the connection is closed, 4404.
import type { ProtocolCommand, ProtocolSubscribeParams, ProtocolUnsubscribeParams } from '@agentplane/agent-server';
import type { SocketListener, SocketPeer, SocketSession } from '../../http/socket-session.js';
import { selector } from './event-filter.js';
import type { ProtocolCommands } from './protocol-commands.js';
import { CommandError } from './protocol-commands.js';
import type { ThreadEvents } from './thread-events.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** A connection remembers which new events it sent, so that two subscriptions never send one twice; this many at most. */
const REMEMBERED_SEQS = 20_000;

export interface ProtocolSocketOptions {
  threadId: string;
  headers: Headers;
  commands: ProtocolCommands;
  events: ThreadEvents;
  /** Checks a client message against the spec's envelope (a problem, or null). */
  checkCommand: (message: unknown) => string | null;
  /** Where a fault of the emulator's own is reported. */
  onError: (message: string) => void;
}

export function protocolSocket(options: ProtocolSocketOptions): SocketSession {
  return {
    open(peer) {
      return new SocketConnection(options, peer);
    },
  };
}

class SocketConnection implements SocketListener {
  private readonly subscriptions = new Map<string, () => void>();
  private readonly sent = new Set<number>();
  private nextSubscription = 1;
  /** The connection closed (or is closing): nothing more is sent. */
  private ended = false;

  constructor(
    private readonly options: ProtocolSocketOptions,
    private readonly peer: SocketPeer,
  ) {}

  message(text: string): void {
    if (this.ended) return;
    const { commands, threadId } = this.options;
    let command: unknown;
    try {
      command = JSON.parse(text);
    } catch {
      this.reply(commands.error(threadId, null, 'invalid_argument', 'Protocol commands must be valid JSON.'));
      return;
    }
    const problem = this.options.checkCommand(command);
    const id = (command as { id?: unknown } | null)?.id;
    const readableId = Number.isSafeInteger(id) && (id as number) >= 0 ? (id as number) : null;
    if (problem !== null) {
      this.reply(commands.error(threadId, readableId, 'invalid_argument', `Not a protocol command: ${problem}`));
      return;
    }
    try {
      this.command(command as ProtocolCommand);
    } catch (error) {
      // A fault of the emulator's own: reported, and answered, never left unanswered.
      this.options.onError(`WebSocket command on thread ${threadId} failed inside the emulator: ${(error as Error)?.stack ?? error}`);
      this.reply(commands.error(threadId, readableId, 'unknown_error', 'Internal emulator error; see its log.'));
    }
  }

  closed(): void {
    this.ended = true;
    for (const unsubscribe of this.subscriptions.values()) unsubscribe();
    this.subscriptions.clear();
  }

  private command(command: ProtocolCommand): void {
    const { commands, threadId } = this.options;
    try {
      if (command.method === 'subscription.subscribe') this.subscribe(command);
      else if (command.method === 'subscription.unsubscribe') this.unsubscribe(command);
      else this.reply(commands.answer(threadId, command, this.options.headers));
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      this.reply(commands.error(threadId, command.id, error.code, error.message));
    }
  }

  private subscribe(command: ProtocolCommand): void {
    const { commands, events, threadId } = this.options;
    const params = commands.params<ProtocolSubscribeParams>(command.method, 'ProtocolSubscribeParams', command.params);
    const selects = selector(params);
    const since = params.since;
    const id = `sub-${this.nextSubscription++}`;
    const replayed = events.store.after(threadId, since ?? 0).filter(selects).length;
    this.reply({
      type: 'success',
      id: command.id,
      result: { subscription_id: id, replayed_events: replayed },
      meta: { thread_id: threadId, applied_through_seq: events.store.lastSeq(threadId) },
    });
    this.subscriptions.set(
      id,
      events.follow(threadId, since, {
        selects,
        send: (event, replayed) => {
          if (!replayed && this.sent.has(event.seq)) return;
          this.remember(event.seq);
          this.peer.send(event.json);
        },
        gone: () => {
          if (this.ended) return;
          this.ended = true;
          this.peer.close(4404, 'The thread was deleted.');
        },
      }),
    );
  }

  private unsubscribe(command: ProtocolCommand): void {
    const { commands, events, threadId } = this.options;
    const params = commands.params<ProtocolUnsubscribeParams>(command.method, 'ProtocolUnsubscribeParams', command.params);
    const unsubscribe = this.subscriptions.get(params.subscription_id);
    if (!unsubscribe) throw new CommandError('no_such_subscription', `This connection has no subscription ${params.subscription_id}.`);
    unsubscribe();
    this.subscriptions.delete(params.subscription_id);
    this.reply({
      type: 'success',
      id: command.id,
      result: {},
      meta: { thread_id: threadId, applied_through_seq: events.store.lastSeq(threadId) },
    });
  }

  private remember(seq: number): void {
    this.sent.add(seq);
    if (this.sent.size <= REMEMBERED_SEQS) return;
    // Events that old are no longer kept, so no subscription can replay them.
    const oldest = Math.max(...this.sent) - REMEMBERED_SEQS / 2;
    for (const sent of this.sent) if (sent < oldest) this.sent.delete(sent);
  }

  private reply(answer: unknown): void {
    if (!this.ended) this.peer.send(JSON.stringify(answer));
  }
}
