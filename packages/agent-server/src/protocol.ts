// The thread-centric protocol (what `@langchain/react`'s `useStream` speaks), typed from the spec:
// each method's params and result come from `ProtocolMethod`, events are `ProtocolEvent`.
//   - `sendCommand` sends one command over HTTP and answers its result, or throws
//     `ProtocolCommandError` with the protocol's error code.
//   - `streamThreadEvents` yields a thread's events over SSE as they happen. A connection that
//     breaks is opened again with `since`, the last `seq` received: no event is lost or repeated.
//   - `connectThread` opens the thread's WebSocket: commands and subscriptions on one connection,
//     each subscription an async iterable of events. The WebSocket constructor is injected
//     (browsers and Node.js 22 have one; on Node.js 20, the `ws` package's); a connection that
//     breaks is opened again and its subscriptions made again with `since`.
import { ApiError } from '@agentplane/client-core';
import type { AgentServerClient } from './client.js';
import type { components } from './generated/openapi.js';
import { eventsOf } from './streaming.js';

type Schemas = components['schemas'];
export type ProtocolMethodName = Schemas['ProtocolMethod']['method'];
/** The params of a method, as the spec declares them. */
export type ProtocolParams<Method extends ProtocolMethodName> = Extract<Schemas['ProtocolMethod'], { method: Method }>['params'];
/** The result of a method's success, as the spec declares it. */
export type ProtocolResult<Method extends ProtocolMethodName> = Extract<Schemas['ProtocolMethod'], { method: Method }>['result'];

/** A command the server refused: the protocol's error code and message. */
export class ProtocolCommandError extends Error {
  override name = 'ProtocolCommandError';
  constructor(
    readonly code: Schemas['ProtocolErrorCode'],
    message: string,
    /** The command's id (null when the server could not read one). */
    readonly commandId: number | null,
  ) {
    super(`${code}: ${message}`);
  }
}

let nextCommandId = 1;

/** Sends a command to a thread over HTTP; answers its result, or throws ProtocolCommandError (ApiError for an HTTP error). */
export async function sendCommand<Method extends Exclude<ProtocolMethodName, `subscription.${string}`>>(
  client: AgentServerClient,
  threadId: string,
  method: Method,
  params: ProtocolParams<Method>,
  options: { signal?: AbortSignal } = {},
): Promise<ProtocolResult<Method>> {
  const id = nextCommandId++;
  const { data, error, response } = await client.POST('/threads/{thread_id}/commands', {
    params: { path: { thread_id: threadId } },
    body: { id, method, params: params as Record<string, unknown> },
    ...(options.signal ? { signal: options.signal } : {}),
  } as never);
  if (error !== undefined || !data) throw new ApiError(response.status, error, response.url || 'request');
  return resultOf(data as Schemas['ProtocolAnswer']) as ProtocolResult<Method>;
}

function resultOf(answer: Schemas['ProtocolAnswer']): Record<string, unknown> {
  if (answer.type === 'error') throw new ProtocolCommandError(answer.error, answer.message, answer.id);
  return answer.result;
}

export interface ThreadEventsOptions {
  signal?: AbortSignal;
  /** Only events after this `seq` (the last one received); without it, every event the thread keeps first. */
  since?: number;
  /** How many times a broken connection is opened again, with `since`, before the error is thrown (default 5). */
  reconnects?: number;
}

type Filter = Omit<Schemas['ProtocolEventFilter'], 'since'>;

/**
 * The thread's events the filter selects, over SSE: the kept ones (after `since`), then each new
 * one, until `signal` aborts or the consumer stops (the stream itself lasts as long as the thread).
 */
export async function* streamThreadEvents(
  client: AgentServerClient,
  threadId: string,
  filter: Filter,
  options: ThreadEventsOptions = {},
): AsyncGenerator<Schemas['ProtocolEvent'], void, undefined> {
  const reconnects = options.reconnects ?? 5;
  let since = options.since;
  for (let attempt = 0; ; attempt++) {
    const { data, error, response } = (await client.POST('/threads/{thread_id}/stream/events', {
      params: { path: { thread_id: threadId } },
      body: { ...filter, ...(since === undefined ? {} : { since }) },
      parseAs: 'stream',
      ...(options.signal ? { signal: options.signal } : {}),
    } as never)) as { data?: unknown; error?: unknown; response: Response };
    if (!response.ok || error !== undefined) throw new ApiError(response.status, error, response.url || 'request');
    try {
      for await (const frame of eventsOf<{ data: Schemas['ProtocolEvent'] }>(data as ReadableStream<Uint8Array>, options.signal)) {
        since = frame.data.seq;
        attempt = 0;
        yield frame.data;
      }
      return;
    } catch (caught) {
      if (options.signal?.aborted || attempt >= reconnects) throw caught;
    }
    await pause(Math.min(250 * 2 ** attempt, 5000));
  }
}

/** What the client needs of a WebSocket: the standard one (browsers, Node.js 22) and the `ws` package's both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (event: SocketEventLike) => void): void;
}

/** What the client reads of a WebSocket event: a message's data, a close's code and reason. */
export interface SocketEventLike {
  type?: string;
  data?: unknown;
  code?: number;
  reason?: string;
}
/** A WebSocket constructor: the standard one (two arguments), or one that also takes headers (the `ws` package's). */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  options?: { headers?: Record<string, string> },
) => WebSocketLike;

export interface ConnectThreadOptions {
  /** The agent server's URL (`http(s)://`; the socket is `ws(s)://` on the same host). */
  baseUrl: string;
  threadId: string;
  /**
   * Sent as `X-Api-Key` in the handshake. Only a constructor that takes headers (the `ws`
   * package's, `new WebSocket(url, protocols, { headers })`) can send it: a browser's cannot, and
   * a deployment that requires a key is reached from a browser over HTTP (`streamThreadEvents`).
   */
  apiKey?: string;
  /** The WebSocket constructor (default `globalThis.WebSocket`). */
  WebSocket?: WebSocketConstructor;
  /** How many times a connection that broke is opened again before the subscriptions end with the error (default 5). */
  reconnects?: number;
}

/** An async iterable of a subscription's events; `unsubscribe` ends it. */
export interface ProtocolSubscription extends AsyncIterable<Schemas['ProtocolEvent']> {
  /** The server's ID of the subscription on the current connection. */
  readonly id: string;
  unsubscribe(): Promise<void>;
}

/** A thread's WebSocket: commands, and subscriptions to its events. */
export interface ThreadSocket {
  /** Sends a command; answers its result or throws ProtocolCommandError. */
  send<Method extends Exclude<ProtocolMethodName, `subscription.${string}`>>(
    method: Method,
    params: ProtocolParams<Method>,
  ): Promise<ProtocolResult<Method>>;
  /** Subscribes to the events a filter selects (the kept ones after `since` first, or all kept ones). */
  subscribe(filter: Filter, options?: { since?: number }): Promise<ProtocolSubscription>;
  /** Closes the connection; every subscription ends. */
  close(): void;
}

/** Closes that end a connection for good (4000 + an HTTP status of a refusal), as opposed to one that broke. */
const isFinalClose = (code: number) => code >= 4400 && code < 4500 && code !== 4408 && code !== 4429;

export async function connectThread(options: ConnectThreadOptions): Promise<ThreadSocket> {
  const connection = new SocketConnection(options);
  await connection.open();
  return connection;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** A subscription's side of the connection: its filter, the last `seq` it delivered, its queue of events. */
class Subscription implements ProtocolSubscription {
  id = '';
  since: number | undefined;
  private readonly queue: Schemas['ProtocolEvent'][] = [];
  private waiting: ((next: IteratorResult<Schemas['ProtocolEvent']>) => void) | undefined;
  private ended: Error | true | undefined;

  constructor(
    readonly filter: Filter,
    since: number | undefined,
    private readonly connection: SocketConnection,
  ) {
    this.since = since;
  }

  push(event: Schemas['ProtocolEvent']): void {
    if (this.ended || (this.since !== undefined && event.seq <= this.since)) return;
    this.since = event.seq;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
    } else this.queue.push(event);
  }

  end(error?: Error): void {
    if (this.ended) return;
    this.ended = error ?? true;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
  }

  unsubscribe(): Promise<void> {
    return this.connection.unsubscribe(this);
  }

  [Symbol.asyncIterator](): AsyncIterator<Schemas['ProtocolEvent']> {
    return {
      next: () => {
        const event = this.queue.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        if (this.ended instanceof Error) return Promise.reject(this.ended);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: async () => {
        await this.unsubscribe();
        return { value: undefined, done: true };
      },
    };
  }
}

class SocketConnection implements ThreadSocket {
  private socket: WebSocketLike | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly subscriptions = new Set<Subscription>();
  private nextId = 1;
  private closedByClient = false;
  private attempts = 0;

  constructor(private readonly options: ConnectThreadOptions) {}

  open(): Promise<void> {
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Socket) throw new Error('No WebSocket constructor: pass one (the `ws` package on Node.js 20) as options.WebSocket.');
    const url = `${this.options.baseUrl.replace(/^http/, 'ws').replace(/\/$/, '')}/threads/${this.options.threadId}/stream/events`;
    const socket = this.options.apiKey ? new Socket(url, [], { headers: { 'x-api-key': this.options.apiKey } }) : new Socket(url);
    this.socket = socket;
    return new Promise((resolve, reject) => {
      let opened = false;
      socket.addEventListener('open', () => {
        opened = true;
        this.attempts = 0;
        resolve();
      });
      socket.addEventListener('message', (event) => this.receive(String(event.data)));
      socket.addEventListener('error', () => {
        if (!opened) reject(new Error(`The WebSocket of thread ${this.options.threadId} could not be opened.`));
      });
      socket.addEventListener('close', (event) => {
        if (opened) void this.dropped(event.code ?? 1006, event.reason ?? '');
      });
    });
  }

  async send<Method extends Exclude<ProtocolMethodName, `subscription.${string}`>>(
    method: Method,
    params: ProtocolParams<Method>,
  ): Promise<ProtocolResult<Method>> {
    return (await this.command(method, params as Record<string, unknown>)) as ProtocolResult<Method>;
  }

  async subscribe(filter: Filter, options: { since?: number } = {}): Promise<ProtocolSubscription> {
    const subscription = new Subscription(filter, options.since, this);
    this.subscriptions.add(subscription);
    try {
      await this.resubscribe(subscription);
    } catch (error) {
      this.subscriptions.delete(subscription);
      throw error;
    }
    return subscription;
  }

  async unsubscribe(subscription: Subscription): Promise<void> {
    if (!this.subscriptions.delete(subscription)) return;
    subscription.end();
    if (this.socket?.readyState === 1) await this.command('subscription.unsubscribe', { subscription_id: subscription.id }).catch(() => {});
  }

  close(): void {
    this.closedByClient = true;
    this.socket?.close(1000, 'done');
    this.endAll();
  }

  private async resubscribe(subscription: Subscription): Promise<void> {
    const result = await this.command('subscription.subscribe', {
      ...subscription.filter,
      ...(subscription.since === undefined ? {} : { since: subscription.since }),
    });
    subscription.id = String(result.subscription_id);
  }

  private command(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.socket?.readyState !== 1) return reject(new Error(`The WebSocket of thread ${this.options.threadId} is not open.`));
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  private receive(text: string): void {
    const message = JSON.parse(text) as Schemas['ProtocolSocketMessage'];
    if (message.type === 'event') {
      // The server sends each event once per connection; every subscription whose filter selects it gets it.
      for (const subscription of this.subscriptions) if (selects(subscription.filter, message)) subscription.push(message);
      return;
    }
    const pending = message.id === null ? undefined : this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id!);
    if (message.type === 'success') pending.resolve(message.result);
    else pending.reject(new ProtocolCommandError(message.error, message.message, message.id));
  }

  /** The connection closed without the client asking: opened again, unless the server refused it for good. */
  private async dropped(code: number, reason: string): Promise<void> {
    const error = new Error(`The WebSocket of thread ${this.options.threadId} closed (${code}${reason ? `: ${reason}` : ''}).`);
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    if (this.closedByClient) return;
    if (isFinalClose(code) || this.attempts >= (this.options.reconnects ?? 5)) return this.endAll(error);
    await pause(Math.min(250 * 2 ** this.attempts++, 5000));
    try {
      await this.open();
      for (const subscription of this.subscriptions) await this.resubscribe(subscription);
    } catch {
      // A failed attempt closes again, and counts.
      if (this.socket?.readyState !== 1) await this.dropped(code, reason);
    }
  }

  private endAll(error?: Error): void {
    for (const subscription of this.subscriptions) subscription.end(error);
    this.subscriptions.clear();
  }
}

/** The channel of an event of `method` with `data` (ProtocolChannel): `input.*` are `input`, a named custom event `custom:<name>`. */
export function protocolChannel(method: string, data: unknown): string {
  if (method === 'input.requested' || method === 'input.answered') return 'input';
  if (method === 'custom') {
    const name = (data as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? `custom:${name}` : 'custom';
  }
  return method;
}

/**
 * Whether a filter (ProtocolEventFilter) selects an event of `channel` in `namespace`: one of its
 * channels (a bare `custom` takes every `custom:<name>`), under one of its namespace prefixes (a
 * segment without `:` names a node, any of its tasks) no deeper than `depth` below it. The server
 * selects what it sends with this; a client with several subscriptions on one connection, each
 * event sent once, picks each subscription's with it too.
 */
export function filterSelects(filter: Filter, channel: string, namespace: readonly string[]): boolean {
  if (!filter.channels.includes(channel) && !(channel.startsWith('custom:') && filter.channels.includes('custom'))) return false;
  const prefixes = filter.namespaces ?? [];
  if (prefixes.length === 0) return true;
  return prefixes.some(
    (prefix) =>
      prefix.length <= namespace.length &&
      prefix.every((segment, i) => segment === namespace[i] || (!segment.includes(':') && namespace[i]!.split(':')[0] === segment)) &&
      (filter.depth === undefined || namespace.length - prefix.length <= filter.depth),
  );
}

const selects = (filter: Filter, event: Schemas['ProtocolEvent']) =>
  filterSelects(filter, protocolChannel(event.method, event.params.data), event.params.namespace);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
