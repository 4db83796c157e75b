import { describe, expect, it } from 'vitest';
import { ApiError, unwrap } from '../src/errors.js';

const response = (status: number) => {
  const r = new Response(null, { status });
  Object.defineProperty(r, 'url', { value: 'http://api.test/v2/deployments' });
  return r;
};

describe('unwrap', () => {
  it('returns the data of a 2xx result', () => {
    expect(unwrap({ data: { id: 'd' }, response: response(200) })).toEqual({ id: 'd' });
    expect(unwrap({ data: undefined, response: response(204) })).toBeUndefined();
  });

  it('throws an ApiError naming each invalid field of a 422', () => {
    const body = {
      detail: [
        { loc: ['body', 'source_config', 'repo_url'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'secrets', 0, 'name'], msg: 'String should match pattern', type: 'string_pattern_mismatch' },
      ],
    };
    const error = catchError(() => unwrap({ error: body, response: response(422) }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(422);
    expect(error.body).toBe(body);
    expect(error.issues).toHaveLength(2);
    expect(error.message).toBe(
      'http://api.test/v2/deployments answered 422: body.source_config.repo_url: Field required (missing); body.secrets.0.name: String should match pattern (string_pattern_mismatch)',
    );
  });

  it('uses the detail sentence of a 404, and the object detail of the sandbox pool 404', () => {
    expect(catchError(() => unwrap({ error: { detail: 'Deployment ID d not found.' }, response: response(404) })).message).toContain(
      'answered 404: Deployment ID d not found.',
    );
    expect(
      catchError(() => unwrap({ error: { detail: { error: 'NotFound', message: 'Resource not found.' } }, response: response(404) }))
        .message,
    ).toContain('answered 404: NotFound: Resource not found.');
  });

  it('still explains an unexpected body', () => {
    expect(catchError(() => unwrap({ error: 'Bad Gateway', response: response(502) })).message).toContain('answered 502: Bad Gateway');
    expect(catchError(() => unwrap({ error: {}, response: response(500) })).message).toContain(
      'answered 500: no error details in the body',
    );
  });
});

function catchError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected a throw');
}
