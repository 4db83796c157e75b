// The fetch every request of a run goes through. It finds the spec operation of each request,
// waits out rate limiting (429, as Retry-After says), checks each answer against the spec
// (contract.ts) and records what it found for the operation's schema check, and notices an
// operation the server does not serve: a 404, 405 or 501 for a route whose resources exist.
import { createParser } from 'eventsource-parser';
import type { Route } from './contract.js';
import { checkAnswer, checkEvent, isEventStream, routeOf } from './contract.js';
import type { ApiName, Finding, RateLimitWait } from './model.js';

export type Fetch = (request: Request) => Promise<Response>;

/** One answer as the run saw it. */
export interface Exchange {
  route: Route;
  status: number;
  findings: Finding[];
  /** The check that made the request (none during cleanup). */
  check: string | undefined;
}

/** Thrown into the check that called an operation the server does not serve. */
export class NotServedError extends Error {
  override readonly name = 'NotServedError';
  constructor(
    readonly operationId: string,
    readonly status: number,
  ) {
    super(`the server does not serve ${operationId} (it answered ${status} for a route of the spec whose resources exist)`);
  }
}

export interface RecorderOptions {
  api: ApiName;
  baseUrl: string;
  fetch: Fetch;
  /** The longest a run waits out 429 answers for one request, in total. */
  maxRateLimitWaitMs: number;
  signal: AbortSignal;
  /**
   * Whether what a request names is known to exist: the records of its path parameters (the run's
   * own live threads and assistants) and a graph its body names (`requestText`).
   */
  resourcesExist(route: Route, requestText: string): boolean;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Told of each 429 answer before it is waited out. */
  onRateLimit?(wait: RateLimitWait): void;
}

export class Recorder {
  readonly exchanges: Exchange[] = [];
  /** Operations found not served, with the status that showed it. */
  readonly notServed = new Map<string, number>();
  /** Operations that answered a success in this run: a later 404 is that of a record, never of the route. */
  private readonly served = new Set<string>();
  /** Number of 429 answers waited out. */
  rateLimited = 0;
  /** Time spent waiting them out, in total. */
  rateLimitedMs = 0;
  /** The check running now, recorded with each answer. */
  currentCheck: string | undefined;
  private readonly basePath: string;

  constructor(private readonly options: RecorderOptions) {
    this.basePath = new URL(options.baseUrl).pathname.replace(/\/+$/, '');
  }

  /** The fetch to hand to the typed client. */
  readonly fetch: Fetch = async (request) => {
    const url = new URL(request.url);
    const path = url.pathname.startsWith(this.basePath) ? url.pathname.slice(this.basePath.length) : url.pathname;
    const route = routeOf(this.options.api, request.method, path);
    const requestText = request.body ? await request.clone().text() : '';
    const response = await this.send(request, route?.operation.operationId ?? `${request.method} ${path}`);
    if (route && response.body && isEventStream(route, response.status)) return this.streamed(route, response, requestText);
    const text = await response.text();
    let body: unknown;
    let json = false;
    if (text !== '') {
      try {
        body = JSON.parse(text);
        json = true;
      } catch {
        body = text;
      }
    }
    if (route && response.status < 500) {
      // A 404 for a request that names a checkpoint or an assistant's version in its body may be that record's.
      const namesRecord = /"(checkpoint_id|version)"/.test(requestText);
      const operationId = route.operation.operationId;
      if (
        [404, 405, 501].includes(response.status) &&
        this.options.resourcesExist(route, requestText) &&
        !namesRecord &&
        !this.served.has(operationId)
      ) {
        this.notServed.set(operationId, response.status);
        throw new NotServedError(operationId, response.status);
      }
      if (response.status < 400) this.served.add(operationId);
      this.exchanges.push({
        route,
        status: response.status,
        findings: checkAnswer(route, response.status, body, response.headers, topLevelFields(requestText), json),
        check: this.currentCheck,
      });
    }
    return new Response(response.status === 204 || text === '' ? null : text, { status: response.status, headers: response.headers });
  };

  /**
   * A streamed answer (text/event-stream) is handed on as it arrives, never buffered: a stream
   * ends when its run ends, or never (a thread's). Its headers are checked at once and each event
   * as it passes, with eventsource-parser, into the same exchange; a reader that stops early
   * closes the connection.
   */
  private streamed(route: Route, response: Response, requestText: string): Response {
    const operationId = route.operation.operationId;
    this.served.add(operationId);
    const exchange: Exchange = {
      route,
      status: response.status,
      findings: checkAnswer(route, response.status, undefined, response.headers, topLevelFields(requestText), false),
      check: this.currentCheck,
    };
    this.exchanges.push(exchange);
    const seen = new Set(exchange.findings.map((finding) => finding.message));
    const parser = createParser({
      onEvent: (event) => {
        for (const finding of checkEvent(route, response.status, event)) {
          // One finding per rule broken, not one per event.
          if (seen.has(finding.message) || seen.size > 50) continue;
          seen.add(finding.message);
          exchange.findings.push(finding);
        }
      },
    });
    const decoder = new TextDecoder();
    const body = response.body!.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          controller.enqueue(chunk);
          parser.feed(decoder.decode(chunk, { stream: true }));
        },
        flush() {
          parser.feed(decoder.decode());
        },
      }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /** Sends a request, waiting out 429 answers for at most maxRateLimitWaitMs in total. */
  private async send(request: Request, operationId: string): Promise<Response> {
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const response = await this.options.fetch(request.clone());
      if (response.status !== 429) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'), attempt);
      if (waited + wait > this.options.maxRateLimitWaitMs) return response;
      await response.body?.cancel();
      this.rateLimited++;
      this.rateLimitedMs += wait;
      this.options.onRateLimit?.({ api: this.options.api, operationId, waitMs: wait });
      waited += wait;
      await this.options.sleep(wait, this.options.signal);
    }
  }
}

/** Retry-After as seconds or an HTTP date; without one, 1 s doubling per attempt. */
export function retryAfterMs(header: string | null, attempt: number): number {
  if (header !== null) {
    if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1_000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  return Math.min(30_000, 1_000 * 2 ** attempt);
}

function topLevelFields(text: string): string[] {
  if (text === '') return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed) : [];
  } catch {
    return [];
  }
}
