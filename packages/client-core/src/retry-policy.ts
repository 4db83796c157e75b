// Whether a request is safe to send again, as the spec declares it: each client package hands
// over its generated retry rules (the operations that declare `x-retry-safe`: method, path
// template, policy), so a change of the spec changes what is retried with no code edit
// (decision S7). Every other request follows HTTP: GET and HEAD may be repeated.
import type { RequestLike } from './outgoing-request.js';
import type { IsRetryable } from './retry.js';

/** When an operation may be sent again: always, never, or only when its JSON body names a field. */
export type RetryPolicy = 'always' | 'never' | { readonly ifBodyHas: string };

export interface RetryRule {
  readonly method: string;
  readonly path: string;
  readonly retry: RetryPolicy;
}

/**
 * The retry predicate of an API. A request is matched to a rule by method and path (the base
 * URL's own path is a prefix and is not looked at); a request no rule matches is safe to repeat
 * only if it is a GET or HEAD.
 */
export function retryPolicyFor(rules: readonly RetryRule[]): IsRetryable {
  const routes = rules
    .map((op) => ({
      ...op,
      params: (op.path.match(/\{/g) ?? []).length,
      pattern: new RegExp(
        `${op.path
          .split(/\{[^}]+\}/)
          .map(escapeRegExp)
          .join('[^/]+')}$`,
      ),
    }))
    // Literal paths first: POST /threads/search is the search, not /threads/{thread_id}.
    .sort((a, b) => a.params - b.params);
  return (request: RequestLike) => {
    const pathname = new URL(request.url).pathname;
    const route = routes.find((r) => r.method === request.method && r.pattern.test(pathname));
    const policy = route?.retry ?? (request.method === 'GET' || request.method === 'HEAD' ? 'always' : 'never');
    if (typeof policy === 'string') return policy === 'always';
    return bodyNames(request, policy.ifBodyHas);
  };
}

async function bodyNames(request: RequestLike, field: string): Promise<boolean> {
  const body: unknown = await request.json().catch(() => undefined);
  return !!body && typeof body === 'object' && (body as Record<string, unknown>)[field] != null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
