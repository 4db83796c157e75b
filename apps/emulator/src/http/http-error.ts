// An error answer a handler or the HTTP layer raises: a status and the `detail` of its body.
import type { ValidationIssue } from '../contract/validation-errors.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail));
  }
}

/** A 422 in the spec's HTTPValidationError shape. */
export function validationError(issues: ValidationIssue[]): HttpError {
  return new HttpError(422, issues);
}
