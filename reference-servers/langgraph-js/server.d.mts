// Types of server.mjs, for the TypeScript tests that start the server.

export interface LangGraphServer {
  /** Base URL, such as http://127.0.0.1:40123 */
  url: string;
  /** The CLI's process id (the leader of the server's process group). */
  pid: number;
  /** From spawn to the first answer of /ok. */
  startupMs: number;
  /** Stops the whole process group and removes the server's project folder. */
  stop(): Promise<void>;
}

export function ensureInstalled(options?: { log?: (line: string) => void }): Promise<void>;

export function startLangGraphServer(options: { port: number; timeoutMs?: number; log?: (line: string) => void }): Promise<LangGraphServer>;
