// The protocol client with an injected fetch and an injected WebSocket: a command's result and its
// error answer, a thread's events resumed with `since` after a broken connection, and a socket
// whose subscriptions are made again after their last seq when it drops, and end when the server
// closes it for good. (Against a server: the emulator's protocol tests use this client throughout.)
import { json } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';
import type { ProtocolEvent, WebSocketLike } from '../src/index.js';
import {
  connectThread,
  createAgentServerClient,
  filterSelects,
  ProtocolCommandError,
  sendCommand,
  streamThreadEvents,
} from '../src/index.js';

const THREAD_ID = '01a22107-8f1f-7200-b7fb-3ec675c6dee7';
const RUN_ID = '0193a1b2-7c4d-7e5f-8a6b-9c0d1e2f3a4b';
const meta = { thread_id: THREAD_ID, applied_through_seq: 0 };

const event = (seq: number, data: Record<string, unknown> = { event: 'running', graph_name: 'agent' }): ProtocolEvent => ({
  type: 'event',
  event_id: String(seq),
  seq,
  method: 'lifecycle',
  params: { namespace: [], timestamp: 1767225600000 + seq, data: data as never },
});
const frame = (e: ProtocolEvent) => `event: ${e.method}\ndata: ${JSON.stringify(e)}\nid: ${e.event_id}\n\n`;

function body(chunks: string[], breakAfter = false): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(encoder.encode(chunks[next++]!));
      else if (breakAfter) controller.error(new TypeError('terminated'));
      else controller.close();
    },
  });
}

function client(answer: (request: Request, n: number) => Response | Promise<Response>) {
  const requests: { url: string; body: unknown }[] = [];
  const fetch = async (request: Request) => {
    requests.push({ url: request.url, body: await request.clone().json() });
    return answer(request, requests.length);
  };
  return { api: createAgentServerClient({ baseUrl: 'http://as.test', fetch, retry: false }), requests };
}

describe('sendCommand', () => {
  it('answers the result of a success, and throws the error code of an error answer', async () => {
    const ok = client(() => json(200, { type: 'success', id: 1, result: { run_id: RUN_ID }, meta }));
    expect(await sendCommand(ok.api, THREAD_ID, 'run.start', { assistant_id: 'agent', input: null })).toEqual({ run_id: RUN_ID });
    expect(ok.requests[0]).toMatchObject({ url: `http://as.test/threads/${THREAD_ID}/commands`, body: { method: 'run.start' } });
    const refused = client(() => json(200, { type: 'error', id: 1, error: 'no_such_interrupt', message: 'not waiting at x', meta }));
    const error = await sendCommand(refused.api, THREAD_ID, 'input.respond', { interrupt_id: 'x', response: 1, namespace: [] }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ProtocolCommandError);
    expect(error).toMatchObject({ code: 'no_such_interrupt', commandId: 1 });
  });
});

describe('streamThreadEvents', () => {
  it('resumes a broken stream with since, the last seq read: nothing lost, nothing repeated', async () => {
    const { api, requests } = client((_request, n) =>
      n === 1
        ? new Response(body([frame(event(1)), frame(event(2, { event: 'started', graph_name: 'agent' }))], true), { status: 200 })
        : new Response(body([frame(event(3, { event: 'completed', graph_name: 'agent' }))]), { status: 200 }),
    );
    const seen: number[] = [];
    for await (const e of streamThreadEvents(api, THREAD_ID, { channels: ['lifecycle'] })) seen.push(e.seq);
    expect(seen).toEqual([1, 2, 3]);
    expect(requests.map((request) => request.body)).toEqual([{ channels: ['lifecycle'] }, { channels: ['lifecycle'], since: 2 }]);
  });
});

/** A WebSocket the test plays the server of: it answers subscribes, and can drop or close the connection. */
class FakeSocket implements WebSocketLike {
  static opened: FakeSocket[] = [];
  readyState = 0;
  readonly sent: { id: number; method: string; params: Record<string, unknown> }[] = [];
  private readonly listeners = new Map<string, ((event: { data?: unknown; code?: number; reason?: string }) => void)[]>();

  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
    setTimeout(() => {
      this.readyState = 1;
      this.emit('open', {});
    });
  }

  addEventListener(type: string, listener: (event: { data?: unknown; code?: number; reason?: string }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(text: string): void {
    const command = JSON.parse(text);
    this.sent.push(command);
    const result = command.method === 'subscription.subscribe' ? { subscription_id: `sub-${command.id}`, replayed_events: 0 } : {};
    setTimeout(() => this.deliver({ type: 'success', id: command.id, result, meta }));
  }

  close(code = 1000, reason = ''): void {
    this.readyState = 3;
    this.emit('close', { code, reason });
  }

  deliver(message: unknown): void {
    this.emit('message', { data: JSON.stringify(message) });
  }

  private emit(type: string, event: { data?: unknown; code?: number; reason?: string }): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}

describe('connectThread', () => {
  it('makes a subscription again after its last seq when the connection drops, and ends it when the server closes for good', async () => {
    FakeSocket.opened = [];
    const socket = await connectThread({ baseUrl: 'https://as.test', threadId: THREAD_ID, WebSocket: FakeSocket });
    expect(FakeSocket.opened[0]!.url).toBe(`wss://as.test/threads/${THREAD_ID}/stream/events`);
    const subscription = await socket.subscribe({ channels: ['lifecycle'] });
    const seen: number[] = [];
    const reading = (async () => {
      for await (const e of subscription) seen.push(e.seq);
    })();
    FakeSocket.opened[0]!.deliver(event(1));
    FakeSocket.opened[0]!.deliver(event(2, { event: 'completed', graph_name: 'agent' }));
    await expect.poll(() => seen).toEqual([1, 2]);
    FakeSocket.opened[0]!.close(1006, 'gone');
    await expect
      .poll(() => FakeSocket.opened[1]?.sent[0], { timeout: 3000 })
      .toMatchObject({
        method: 'subscription.subscribe',
        params: { channels: ['lifecycle'], since: 2 },
      });
    // Replayed again by the server, an event already delivered is not delivered twice.
    FakeSocket.opened[1]!.deliver(event(2, { event: 'completed', graph_name: 'agent' }));
    FakeSocket.opened[1]!.deliver(event(3));
    await expect.poll(() => seen).toEqual([1, 2, 3]);
    FakeSocket.opened[1]!.close(4404, 'The thread was deleted.');
    await reading;
    expect(FakeSocket.opened).toHaveLength(2);
  });
});

describe('filterSelects', () => {
  it('selects by channel (custom:<name> under custom), by namespace prefix (a node names its tasks) and by depth', () => {
    expect(filterSelects({ channels: ['input'] }, 'input', [])).toBe(true);
    expect(filterSelects({ channels: ['custom'] }, 'custom:progress', [])).toBe(true);
    expect(filterSelects({ channels: ['custom:other'] }, 'custom:progress', [])).toBe(false);
    const deep = ['review:1187efd6', 'draft:c9d6bed9'];
    expect(filterSelects({ channels: ['messages'], namespaces: [['review']] }, 'messages', deep)).toBe(true);
    expect(filterSelects({ channels: ['messages'], namespaces: [['review']], depth: 0 }, 'messages', deep)).toBe(false);
    expect(filterSelects({ channels: ['messages'], namespaces: [[]], depth: 1 }, 'messages', deep)).toBe(false);
    expect(filterSelects({ channels: ['messages'], namespaces: [['review:other']] }, 'messages', deep)).toBe(false);
  });
});
