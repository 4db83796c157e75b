// Errors of the typed clients. Results stay `{ data, error, response }` as openapi-fetch returns
// them; `unwrap` is the opt-in throwing style, turning a non-2xx into an ApiError that carries
// the operation's error body type and says what went wrong in the spec's own terms (for a 422:
// which fields and why).
import type { ErrorResponseJSON } from 'openapi-typescript-helpers';

/** One entry of a 422's `detail` (the spec's ValidationError: where, what, which rule). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * The error bodies an operation can answer, from its generated type:
 * `ErrorBody<operations['getThread']>` is `ErrorDetail | HTTPValidationError`.
 */
// biome-ignore lint/suspicious/noExplicitAny: openapi-typescript-helpers constrains operations to Record<string | number, any>.
export type ErrorBody<Operation extends Record<string | number, any>> = ErrorResponseJSON<Operation>;

/** A non-2xx answer of an agentplane API; `Body` is the operation's error body type when known. */
export class ApiError<Body = unknown> extends Error {
  override readonly name = 'ApiError';
  /** HTTP status. */
  readonly status: number;
  /** The parsed error body, as the operation's spec declares it. */
  readonly body: Body;
  /** URL of the failing request. */
  readonly request: string;
  /** The entries of a 422 body, empty otherwise. */
  readonly issues: ValidationIssue[];
  /** What went wrong, in the spec's own terms: the message without the request and status. */
  readonly detail: string;

  constructor(status: number, body: Body, request: string) {
    const issues = validationIssues(body);
    const detail = describeErrorBody(body, issues);
    super(`${request} answered ${status}: ${detail}`);
    this.status = status;
    this.body = body;
    this.request = request;
    this.issues = issues;
    this.detail = detail;
  }
}

/**
 * Whether `error` is an ApiError, typed with an operation's error bodies:
 * `if (isApiError<operations['getThread']>(error) && error.status === 404) error.body.detail`.
 */
// biome-ignore lint/suspicious/noExplicitAny: as ErrorBody.
export function isApiError<Operation extends Record<string | number, any> = never>(
  error: unknown,
): error is ApiError<[Operation] extends [never] ? unknown : ErrorBody<Operation>> {
  return error instanceof ApiError;
}

/** A typed openapi-fetch result. */
export interface FetchResult<Data, Err = unknown> {
  data?: Data;
  error?: Err;
  response: Response;
}

/**
 * Returns the data of a successful result and throws an ApiError carrying the result's error
 * body type for any other.
 * @throws {ApiError<Err>}
 * @example const deployment = unwrap(await client.GET('/v2/deployments/{deployment_id}', {...}));
 */
export function unwrap<Data, Err>(result: FetchResult<Data, Err>): Data {
  if (result.response.ok && result.error === undefined) return result.data as Data;
  // A Response carries no method; its URL locates the failing call.
  throw new ApiError<Err>(result.response.status, result.error as Err, result.response.url || 'request');
}

function describeErrorBody(body: unknown, issues: ValidationIssue[]): string {
  if (issues.length > 0) {
    return issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg} (${issue.type})`).join('; ');
  }
  if (body && typeof body === 'object' && 'detail' in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === 'string') return detail;
    if (detail && typeof detail === 'object') {
      const { error, message } = detail as { error?: unknown; message?: unknown };
      if (typeof message === 'string') return typeof error === 'string' ? `${error}: ${message}` : message;
    }
  }
  if (typeof body === 'string' && body.length > 0) return body.slice(0, 500);
  return 'no error details in the body';
}

function validationIssues(body: unknown): ValidationIssue[] {
  if (!body || typeof body !== 'object' || !('detail' in body)) return [];
  const detail = (body as { detail: unknown }).detail;
  if (!Array.isArray(detail)) return [];
  return detail.filter(
    (d): d is ValidationIssue =>
      !!d && typeof d === 'object' && Array.isArray(d.loc) && typeof d.msg === 'string' && typeof d.type === 'string',
  );
}
