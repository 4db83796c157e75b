// The types of a server's generated operation table (server-artifacts.ts). This module imports
// nothing, on purpose: `server-artifacts` copies its compiled declarations into the server's
// generated folder (`<out>/server-operation.ts`), so that a server package that publishes its
// declarations (the emulator) names these types without depending on this private toolkit.

/** The JSON types a path or query parameter's text can be read as. */
export type ScalarTextType = 'string' | 'integer' | 'number' | 'boolean';
/** How a parameter's text is read: as one scalar, or (a query parameter given once per item) as a list of them. */
export type ParameterTextType = ScalarTextType | `${ScalarTextType}[]`;

/** `x-request-limits` of the document root: what every request of the API is held to. */
export interface RequestLimits {
  /** Largest request body, in bytes. */
  bodyBytes: number;
  /** Largest request header section, in bytes. */
  headerBytes: number;
  /** Deepest nesting of a JSON body. */
  jsonDepth: number;
}

/** One operation of the generated table; read-only, as the generated `as const` module is. */
export interface ServerOperation {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  /**
   * The path as a regular expression's source: anchored, one capture group per path parameter
   * (in `pathParams` order) matching one segment, still percent-encoded.
   */
  readonly pathPattern: string;
  readonly pathParams: readonly string[];
  readonly security: readonly Readonly<Record<string, readonly string[]>>[];
  /**
   * Validators of the path and query parameters, and the JSON type each declared parameter's
   * text is read as (a parameter's text that does not read as its type stays text, and fails).
   */
  readonly parameters: {
    readonly path: string | null;
    readonly query: string | null;
    readonly textTypes: Readonly<Record<string, ParameterTextType>>;
  };
  readonly body: {
    readonly required: boolean;
    readonly mediaTypes: readonly string[];
    readonly module: 'body' | 'patch-body';
    readonly validator: string;
  } | null;
  readonly responses: Readonly<
    Record<
      string,
      {
        readonly validator: string | null;
        /**
         * The validator of each event of a `text/event-stream` answer (its `x-event-schema`,
         * decision S10): an event as `{event, data, id}`, `data` read as JSON.
         */
        readonly eventValidator: string | null;
        /**
         * The validators of the messages of a WebSocket the answer (a 101) opens, from its
         * `x-websocket` (decision S11): what a client sends, what the server sends.
         */
        readonly socketValidators: { readonly client: string; readonly server: string } | null;
        /** Every header the response declares, lower-case: what a browser client may need exposed (CORS). */
        readonly headers: readonly string[];
        readonly requiredHeaders: readonly string[];
      }
    >
  >;
}
