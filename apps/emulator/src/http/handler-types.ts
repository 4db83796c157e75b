// The handlers of an API, typed from its spec (the idea of fastify's type providers): each
// operationId gets its path, query and body as the server sees them (the spec's defaults applied;
// a PATCH body as sent, since an absent field means "keep"), and must answer one of the
// operation's documented statuses with that status's body and required headers. A missing or an
// extra handler, an undocumented status or a wrong body is a compile error.

import type { ApiTable } from '../contract/api-contract.js';
import type { JsonText } from '../contract/json-text.js';
import type { SocketSession } from './socket-session.js';
import type { StreamedBody } from './streamed-body.js';

type JsonBody<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : undefined;

/** The headers a response declares (openapi-typescript adds an index signature; drop it). */
type DeclaredHeaders<Response> = Response extends { headers: infer Headers }
  ? { [Name in keyof Headers as string extends Name ? never : Name]: Headers[Name] | string }
  : Record<never, never>;

/** Whether a response is a stream of server-sent events: its body is written while the response is open. */
type IsEventStream<Response> = Response extends { content: { 'text/event-stream': unknown } } ? true : false;

type AnswerFor<Status, Response> = { status: Status } & (Status extends 101
  ? { socket: SocketSession; body?: undefined }
  : IsEventStream<Response> extends true
    ? { stream: StreamedBody; body?: undefined }
    : JsonBody<Response> extends undefined
      ? { body?: undefined }
      : { body: JsonBody<Response> | JsonText<JsonBody<Response>> }) &
  (keyof DeclaredHeaders<Response> extends never
    ? { headers?: Record<string, string> }
    : { headers: DeclaredHeaders<Response> & Record<string, string | number> });

/** What a handler may answer: one of the operation's documented statuses, with its body and headers. */
export type Answer<Operation extends { responses: object }> = {
  [Status in keyof Operation['responses'] & number]: AnswerFor<Status, Operation['responses'][Status]>;
}[keyof Operation['responses'] & number];

type ParamsOf<Operation, Where extends 'path' | 'query'> = Operation extends { parameters: { [W in Where]?: infer P } }
  ? [P] extends [undefined] | [never]
    ? Record<never, never>
    : NonNullable<P>
  : Record<never, never>;

type BodyOf<Operation> = Operation extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : Operation extends { requestBody?: { content: { 'application/json': infer Body } } }
    ? Body | undefined
    : undefined;

/** A request as a handler receives it: validated, coerced, with the spec's defaults applied. */
export interface HandlerRequest<ServerOperation, ClientOperation, Method, Principal> {
  operationId: string;
  path: ParamsOf<ServerOperation, 'path'>;
  query: ParamsOf<ServerOperation, 'query'>;
  /** The parsed JSON body (defaults applied, except on PATCH); undefined when none was sent. */
  body: Method extends 'PATCH' ? BodyOf<ClientOperation> : BodyOf<ServerOperation>;
  /**
   * The request headers by lower-case name, for the preferences a handler honours (such as
   * `Prefer: return=minimal`); credentials and the body's media type are checked before.
   */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  principal: Principal;
  /** Registers a listener called once if the client goes away before the answer is sent. */
  onDisconnect(listener: () => void): void;
  /** Whether the request asks for a WebSocket and its transport can open one (node:http; never in process). */
  upgradable: boolean;
}

/**
 * The handler map of an API: exactly one handler per operation of the generated table.
 * `ServerOperations` are the server-view types (defaults applied), `ClientOperations` the
 * client package's (for PATCH bodies).
 */
export type HandlerMap<Table extends ApiTable, ServerOperations, ClientOperations, Principal> = {
  [Id in keyof Table['operations'] & keyof ServerOperations & keyof ClientOperations]: (
    request: HandlerRequest<
      ServerOperations[Id],
      ClientOperations[Id],
      Table['operations'][Id] extends { method: infer M } ? M : never,
      Principal
    >,
  ) => ServerOperations[Id] extends { responses: object } ? Answer<ServerOperations[Id]> | Promise<Answer<ServerOperations[Id]>> : never;
};

/** A handler map with its types erased, as the HTTP layer calls it. */
export type AnyHandlers<Principal> = Record<
  string,
  (request: {
    operationId: string;
    path: object;
    query: object;
    body: unknown;
    headers: Readonly<Record<string, string | string[] | undefined>>;
    principal: Principal;
    onDisconnect(listener: () => void): void;
    upgradable: boolean;
  }) => RawAnswer | Promise<RawAnswer>
>;

/** An answer as the HTTP layer sends it. */
export interface RawAnswer {
  status: number;
  /** The body to serialise, or its JSON text already (`JsonText`). */
  body?: unknown;
  /** A body written while the response is open (server-sent events), instead of `body`. */
  stream?: StreamedBody;
  /** A WebSocket the answer (a 101) opens, instead of `body`. */
  socket?: SocketSession;
  headers?: Record<string, string | number>;
}

/**
 * A typed handler map as the HTTP layer calls it. Sound because the layer calls a handler only
 * with a request it validated against the same spec the types were generated from, and checks
 * its answer against that spec in development and test mode.
 */
export function runtimeHandlers<Principal, Map extends { [Id in keyof Map]: (request: never) => RawAnswer | Promise<RawAnswer> }>(
  handlers: Map,
): AnyHandlers<Principal> {
  return handlers as unknown as AnyHandlers<Principal>;
}
