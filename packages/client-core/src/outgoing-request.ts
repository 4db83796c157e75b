// A light stand-in for the WHATWG Request that openapi-fetch builds for every call.
//
// Why: constructing a Request costs about as much as the rest of a local round trip's client
// work together (openapi-fetch alone measured 1.17× a raw `fetch(url, init)`). openapi-fetch
// takes the class it instantiates as its `Request` option; this one only records what the call
// said (url, method, headers, body, signal, the other init fields), and `sendRequest` hands
// exactly that to `fetch(url, init)`.
//
// It copies nothing it does not have to: a `Headers` given in `init` is adopted, not copied
// (openapi-fetch builds a fresh one for every call, so the request owns it; `clone()` copies),
// and `fetchInit()` answers the very `init` object the request was built from as long as
// method, headers, body and signal are still the ones it holds. A rest-copy of `init` and a
// second `Headers` per call were, with the default path serializer, most of what this layer
// cost per request (see scripts/bench/clients.bench.js).
//
// Compatibility: openapi-fetch accepts from middleware only instances of the class it was given,
// so `instanceof OutgoingRequest` is true for real Requests too, and `instanceof Request` for
// OutgoingRequests: middleware may return the request it got or a new Request. url, method,
// headers, body and signal are own properties, so middleware that reads or sets them works
// unchanged; other Request getters are not available (`toRequest()` gives a full Request). A
// user-supplied `fetch` always receives a real Request. Code here tells the two apart with
// `isOutgoingRequest`, never with instanceof.

export class OutgoingRequest {
  #brand = true;

  /** True for OutgoingRequests and for real Requests (see above). */
  static [Symbol.hasInstance](value: unknown): boolean {
    return isOutgoingRequest(value) || value instanceof Request;
  }

  /** Whether `value` is an OutgoingRequest rather than a real Request. */
  static isOutgoing(value: unknown): value is OutgoingRequest {
    return typeof value === 'object' && value !== null && #brand in value;
  }

  readonly url: string;
  readonly method: string;
  /** The request's headers: the `Headers` object given in `init`, adopted, or a new one. */
  readonly headers: Headers;
  /** The serialized body (openapi-fetch sends JSON text), or null. */
  readonly body: BodyInit | null;
  readonly signal: AbortSignal | undefined;
  /** The RequestInit this request was built from, as given. */
  #given: RequestInit;

  constructor(input: string | URL, init: RequestInit = {}) {
    this.url = typeof input === 'string' ? input : String(input);
    this.method = init.method === undefined ? 'GET' : init.method.toUpperCase();
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.body = init.body ?? null;
    this.signal = init.signal ?? undefined;
    this.#given = init;
  }

  /** The remaining RequestInit fields (redirect, cache, credentials, …), passed on to fetch. */
  get init(): Omit<RequestInit, 'method' | 'headers' | 'body' | 'signal'> {
    const { method, headers, body, signal, ...rest } = this.#given;
    return rest;
  }

  /** Whether the request can be sent again as it is: every body but a stream can. */
  get reusable(): boolean {
    return !(this.body instanceof ReadableStream);
  }

  /** A copy with its own headers, sharing the (immutable) body. */
  clone(): OutgoingRequest {
    if (!this.reusable) throw new TypeError('a request with a streamed body cannot be cloned');
    return new OutgoingRequest(this.url, { ...this.fetchInit(), headers: new Headers(this.headers) });
  }

  async text(): Promise<string> {
    if (this.body === null) return '';
    if (typeof this.body === 'string') return this.body;
    return this.toRequest().text();
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** A real Request with the same fields. */
  toRequest(): Request {
    return new Request(this.url, this.fetchInit());
  }

  /**
   * The second argument of `fetch(url, init)` that sends this request: the `init` it was built
   * from when that still says what the request holds (the common case, no copy), else a copy
   * of it with the current method, headers, body and signal.
   */
  fetchInit(): RequestInit {
    const given = this.#given;
    if (
      given.method === this.method &&
      given.headers === this.headers &&
      (given.body ?? null) === this.body &&
      (given.signal ?? undefined) === this.signal
    ) {
      return given;
    }
    const { signal, ...rest } = given;
    return { ...rest, method: this.method, headers: this.headers, body: this.body, ...(this.signal ? { signal: this.signal } : {}) };
  }
}

// `instanceof Request` must hold for openapi-fetch's middleware checks; the constructor of
// Request is never run, so none of its internal slots exist (its other getters would throw).
Object.setPrototypeOf(OutgoingRequest.prototype, Request.prototype);

/** What flows through the client's fetch layer: openapi-fetch's light request, or a real one from middleware. */
export type RequestLike = Request | OutgoingRequest;

export function isOutgoingRequest(value: unknown): value is OutgoingRequest {
  return OutgoingRequest.isOutgoing(value);
}

/** Whether `request` can be sent again without a copy. */
export function isReusable(request: RequestLike): boolean {
  return isOutgoingRequest(request) ? request.reusable : request.body === null;
}

/** Sends a request with the global fetch, or with `userFetch` (which gets a real Request). */
export function sendRequest(request: RequestLike, userFetch?: (input: Request) => Promise<Response>): Promise<Response> {
  if (isOutgoingRequest(request)) {
    return userFetch ? userFetch(request.toRequest()) : globalThis.fetch(request.url, request.fetchInit());
  }
  return userFetch ? userFetch(request) : globalThis.fetch(request);
}
