// A thin HTTP front for one Prism process (decision T3). Prism answers an invalid request with the
// operation's first 422 example, which may name a field the request never had; what it actually
// found at fault travels in its `sl-violations` header. This front passes every exchange through
// unchanged, except a 422 that carries request violations: its body becomes those violations in
// the spec's HTTPValidationError shape, so the fields named are the fields at fault. On the way
// in, a boolean query parameter's `1` or `0` (the LangGraph SDK sends `wait=1` and
// `cancel_on_disconnect=0`, and the spec reads them as booleans) is spelled `true` or `false`,
// and a body in one of the API's `x-json-media-types` (the agent server's `text/plain`, as
// LangGraph Studio sends JSON) is passed on as `application/json`, which is all Prism reads.
// The mock has no sockets: Prism answers the thread's WebSocket path (`connectThreadEvents`) with
// a bare 101 and switches to nothing, which a client reads as a broken connection. The front
// answers that 101 with the spec's 426 for a server that does not upgrade, and never asks Prism
// to upgrade either.
import http from 'node:http';

/**
 * Prism reports Ajv keywords; the mock answers the pydantic-style `type`s the spec's examples use.
 * @type {Record<string, string>}
 */
const TYPES = {
  required: 'missing',
  additionalProperties: 'extra_forbidden',
  maximum: 'less_than_equal',
  minimum: 'greater_than_equal',
  exclusiveMaximum: 'less_than',
  exclusiveMinimum: 'greater_than',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  minItems: 'too_short',
  maxItems: 'too_long',
  pattern: 'string_pattern_mismatch',
  enum: 'enum',
  const: 'literal_error',
};
/** @type {Record<string, string>} */
const TYPE_OF_TYPE = {
  string: 'string_type',
  integer: 'int_type',
  number: 'float_type',
  boolean: 'bool_type',
  object: 'dict_type',
  array: 'list_type',
};

/**
 * The HTTPValidationError items for Prism's request violations, or none when it found none.
 * @param {string | undefined} header the `sl-violations` header
 * @returns {{loc: (string | number)[], msg: string, type: string}[]}
 */
export function violationsToValidationErrors(header) {
  if (!header) return [];
  let violations;
  try {
    violations = JSON.parse(header);
  } catch {
    return []; // Prism truncates an oversized header ("Too many violations! ..."): keep its answer
  }
  const items = [];
  for (const violation of Array.isArray(violations) ? violations : []) {
    const [origin, ...location] = violation.location ?? [];
    // `if` only says a `then` failed; the failing fields are reported on their own.
    if (origin !== 'request' || location.length === 0 || typeof violation.code !== 'string' || violation.code === 'if') continue;
    /** @type {(string | number)[]} */
    const loc = location.map((/** @type {string} */ part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
    // A missing or unknown property is reported on its object; the item names the property.
    const named = /(?:required property|found) '([^']+)'/.exec(violation.message)?.[1];
    if (named && (violation.code === 'required' || violation.code === 'additionalProperties')) loc.push(named);
    const expected = /must be (\w+)$/.exec(violation.message)?.[1];
    const type =
      violation.code === 'type'
        ? (TYPE_OF_TYPE[expected ?? ''] ?? 'type_error')
        : violation.code === 'format'
          ? `${/format "([^"]+)"/.exec(violation.message)?.[1] ?? 'format'}_parsing`
          : (TYPES[violation.code] ?? violation.code);
    items.push({ loc, msg: violation.message, type });
  }
  return items;
}

/**
 * The request target with each boolean query parameter's `1` or `0` written `true` or `false`,
 * as the spec reads them; anything else is left for Prism to judge.
 * @param {string} target @param {Set<string>} booleans
 */
export function withBooleansSpelledOut(target, booleans) {
  const at = target.indexOf('?');
  if (at < 0 || booleans.size === 0) return target;
  const query = target
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const [name, value] = pair.split('=');
      return name !== undefined && booleans.has(name) && (value === '1' || value === '0') ? `${name}=${value === '1'}` : pair;
    });
  return `${target.slice(0, at)}?${query.join('&')}`;
}

/**
 * The request headers with a `Content-Type` among `jsonMediaTypes` (whatever its parameters)
 * written `application/json`: the API reads such a body as JSON, and Prism reads only that type.
 * @param {http.IncomingHttpHeaders} headers @param {readonly string[]} jsonMediaTypes
 */
export function withJsonContentType(headers, jsonMediaTypes) {
  const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return jsonMediaTypes.includes(type) ? { ...headers, 'content-type': 'application/json' } : headers;
}

/** What the front answers where Prism would switch protocols: a 426 ErrorDetail, as the spec documents it. */
const NO_SOCKETS = JSON.stringify({
  detail:
    'The mock has no sockets: the protocol over a WebSocket is served by the emulator (@agentplane/emulator). ' +
    'Over HTTP, POST /threads/{thread_id}/commands sends a command and POST on this path streams the events.',
});

/**
 * The request headers without the hop-by-hop ones that ask for a protocol switch: the front
 * forwards plain HTTP only.
 * @param {http.IncomingHttpHeaders} headers
 */
function withoutUpgrade(headers) {
  const { upgrade: _upgrade, connection: _connection, ...rest } = headers;
  return rest;
}

/**
 * Starts the front on `port`, forwarding to the Prism at `upstream`. `booleans` are the query
 * parameters whose `1` and `0` it spells `true` and `false` (queryBooleans of mocks.js);
 * `jsonMediaTypes` the media types besides `application/json` the API reads a body as JSON from.
 * @param {{upstream: string, port: number, host: string, booleans?: Set<string>, jsonMediaTypes?: readonly string[]}} options
 * @returns {Promise<http.Server>}
 */
export function startValidationTranslator({ upstream, port, host, booleans = new Set(), jsonMediaTypes = [] }) {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const path = withBooleansSpelledOut(req.url ?? '/', booleans);
    const headers = withJsonContentType(withoutUpgrade(req.headers), jsonMediaTypes);
    const forward = http.request({ host: target.hostname, port: target.port, method: req.method, path, headers, agent }, (answer) => {
      if (answer.statusCode === 101) {
        answer.resume();
        const { 'keep-alive': _keepAlive, ...kept } = answer.headers; // Prism's CORS headers stay
        res.writeHead(426, {
          ...kept,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(NO_SOCKETS),
          upgrade: 'websocket',
          connection: 'Upgrade',
        });
        res.end(NO_SOCKETS);
        return;
      }
      const items = answer.statusCode === 422 ? violationsToValidationErrors(answer.headers['sl-violations']?.toString()) : [];
      if (items.length === 0) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      answer.resume();
      const body = JSON.stringify({ detail: items });
      res.writeHead(422, { ...answer.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    forward.on('error', (error) => {
      if (res.headersSent) return res.destroy(error);
      res
        .writeHead(502, { 'content-type': 'application/json' })
        .end(JSON.stringify({ detail: `The Prism mock did not answer: ${error.message}` }));
    });
    req.pipe(forward);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
