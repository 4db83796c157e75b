// Errors of the typed clients. Results stay `{ data, error, response }` as openapi-fetch returns
// them; `unwrap` is the opt-in throwing style, turning a non-2xx into an ApiError whose message
// says what went wrong in the spec's own terms (for a 422: which fields and why).

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A non-2xx answer of an agentplane API. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status. */
  readonly status: number;
  /** Parsed error body: `{detail: string}`, the sandbox pool's `{detail: {error, message}}`, or HTTPValidationError. */
  readonly body: unknown;
  /** URL of the failing request. */
  readonly request: string;
  /** The entries of a 422 body, empty otherwise. */
  readonly issues: ValidationIssue[];

  constructor(status: number, body: unknown, request: string) {
    const issues = validationIssues(body);
    super(`${request} answered ${status}: ${describeErrorBody(body, issues)}`);
    this.status = status;
    this.body = body;
    this.request = request;
    this.issues = issues;
  }
}

/** A typed openapi-fetch result. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * Returns the data of a successful result and throws an ApiError for any other.
 * @example const deployment = unwrap(await client.GET('/v2/deployments/{deployment_id}', {...}));
 */
export function unwrap<T>(result: FetchResult<T>): T {
  if (result.response.ok && result.error === undefined) return result.data as T;
  // A Response carries no method; its URL locates the failing call.
  throw new ApiError(result.response.status, result.error, result.response.url || 'request');
}

/** Human-readable description of an error body. */
export function describeErrorBody(body: unknown, issues: ValidationIssue[] = validationIssues(body)): string {
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
