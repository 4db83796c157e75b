// The handler maps are typed from the spec: what the compiler refuses.
import type { AgentServerHandlers } from '../src/agent-server/handler-map.js';
import type { ControlPlaneHandlers } from '../src/control-plane/handlers.js';

declare const handlers: AgentServerHandlers;
const { createThread: _create, ...withoutCreate } = handlers;

// A missing handler.
// @ts-expect-error createThread is missing
export const missing: AgentServerHandlers = withoutCreate;

// An extra handler.
export const extra: AgentServerHandlers = {
  ...handlers,
  // @ts-expect-error listWidgets is not an operation of the spec
  listWidgets: () => ({ status: 200 }),
};

// An undocumented status.
export const undocumented: AgentServerHandlers = {
  ...handlers,
  // @ts-expect-error getThread documents 200, 401, 404 and 422, not 418
  getThread: () => ({ status: 418, body: { detail: 'teapot' } }),
};

// A wrong body shape.
export const wrongBody: AgentServerHandlers = {
  ...handlers,
  // @ts-expect-error a 404 body is {detail}, not {message}
  getThread: () => ({ status: 404, body: { message: 'gone' } }),
};

// A required header left out.
export const missingHeader: AgentServerHandlers = {
  ...handlers,
  // @ts-expect-error searchThreads' 200 declares X-Pagination-Total
  searchThreads: () => ({ status: 200, body: [] }),
};

// Requests are typed, defaults applied: the control plane's listing query always has its limit.
export const typedQuery: Pick<ControlPlaneHandlers, 'listDeployments'> = {
  listDeployments: ({ query }) => {
    const limit: number = query.limit;
    // @ts-expect-error no such query parameter
    void query.name;
    return { status: 200, body: { resources: [], offset: limit } };
  },
};
