// The system operations of the agent server API: whether the server is up, and its version and
// features. Neither reads a record, and neither needs credentials (their `security` is empty).
import { createRequire } from 'node:module';
import type { ServerInfo } from '@agentplane/agent-server';
import type { AgentServerHandlers } from '../handler-map.js';

const require = createRequire(import.meta.url);

export function systemHandlers() {
  let info: ServerInfo | undefined;
  return {
    getHealth() {
      return { status: 200, body: { ok: true as const } };
    },

    getServerInfo() {
      // The version of the API the emulator serves: that of the package whose bundled spec it was
      // built from (decision E1), read once, when first asked.
      info ??= {
        version: (require('@agentplane/agent-server/package.json') as { version: string }).version,
        flags: {
          assistants: true,
          crons: true,
          langsmith: false,
          langsmith_tracing_replicas: false,
          strict_resume: true,
          stream_namespaces: true,
        },
      };
      return { status: 200, body: info };
    },
  } satisfies Partial<AgentServerHandlers>;
}
