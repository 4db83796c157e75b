// What the recorder reads from the upstream agent server itself, with its API key: the graphs it
// serves (each default assistant, its drawing and schemas), and a thread's whole history (its
// root checkpoints, and a subgraph's by namespace), which is where a run's steps are read from.
// Over node:http with a kept-alive agent, as the proxy talks to it: the recorder reads a thread
// each time a run ends, and fetch's own cost per request was most of what that read cost.
import http from 'node:http';
import https from 'node:https';

type Values = Record<string, unknown>;

const TIMEOUT_MS = 30_000;

/** A checkpoint as the upstream's history answers it. */
export interface UpstreamState {
  values: Values;
  next: string[];
  tasks: {
    id: string;
    name: string;
    error?: string | null;
    interrupts?: { value: unknown; id?: string }[];
    checkpoint?: { checkpoint_ns?: string } | null;
    result?: Values | null;
  }[];
  metadata: Values;
  created_at: string;
  checkpoint: { checkpoint_id: string };
  parent_checkpoint?: { checkpoint_id: string } | null;
}

/** A run as the upstream lists it: its status, its strategy, and what it was asked (its kwargs, config and context merged with its assistant's). */
export interface UpstreamRun {
  run_id: string;
  thread_id: string;
  status: string;
  multitask_strategy?: string | null;
  created_at: string;
  kwargs: Values;
}

/** A graph the upstream serves, as its default assistant and graph endpoints describe it. */
export interface UpstreamGraph {
  graphId: string;
  assistant: { assistant_id: string; config: Values; context: Values; metadata: Values; description?: string | null };
  drawing: { plain: Values; xray: Values } | undefined;
  schemas: Values | undefined;
  /** What the upstream did not answer about it. */
  missing: string[];
}

export class Upstream {
  private readonly agent: http.Agent;

  constructor(
    private readonly base: URL,
    private readonly apiKey: string | undefined,
  ) {
    this.agent = base.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  /** One request to the upstream: its status and body. */
  private send(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const secure = this.base.protocol === 'https:';
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = (secure ? https : http).request(
        {
          protocol: this.base.protocol,
          hostname: this.base.hostname,
          port: this.base.port || (secure ? 443 : 80),
          method,
          path: `${this.base.pathname.replace(/\/$/, '')}${path}`,
          agent: this.agent,
          // No content type without a body: a server reads a GET that declares JSON as a malformed body.
          headers: {
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
            ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}),
          },
          timeout: TIMEOUT_MS,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`${method} ${path}: no answer within ${TIMEOUT_MS / 1000} s`)));
      request.on('error', reject);
      request.end(payload);
    });
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { status, text } = await this.send(method, path, body);
    if (status < 200 || status >= 300) throw new Error(`${method} ${path} answered ${status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  }

  /** Lets the kept-alive connections go. */
  close(): void {
    this.agent.destroy();
  }

  /** What the upstream answers to `GET /ok`: its status and the start of its body, or undefined when nothing answers. */
  async probe(): Promise<{ status: number; body: string } | undefined> {
    const url = new URL(`${this.base.pathname.replace(/\/$/, '')}/ok`, this.base);
    try {
      const response = await fetch(url, { headers: this.apiKey ? { 'x-api-key': this.apiKey } : {}, signal: AbortSignal.timeout(30_000) });
      return { status: response.status, body: (await response.text()).slice(0, 200) };
    } catch {
      return undefined;
    }
  }

  /**
   * Every graph the upstream serves: one per default assistant (`created_by: system`), with its
   * drawing and schemas; what the upstream fails to answer of them is left out (and said in `missing`).
   */
  async graphs(): Promise<UpstreamGraph[]> {
    const assistants = await this.request<UpstreamGraph['assistant'][]>('POST', '/assistants/search', {
      metadata: { created_by: 'system' },
      limit: 1000,
    });
    const orNone = <T>(read: Promise<T>, what: string, missing: string[]) =>
      read.catch((error: Error) => {
        missing.push(`${what}: ${error.message}`);
        return undefined;
      });
    return Promise.all(
      assistants.map(async (assistant) => {
        const id = encodeURIComponent(assistant.assistant_id);
        const missing: string[] = [];
        const [plain, xray, schemas] = await Promise.all([
          orNone(this.request<Values>('GET', `/assistants/${id}/graph`), 'its drawing', missing),
          orNone(this.request<Values>('GET', `/assistants/${id}/graph?xray=true`), 'its drawing with xray', missing),
          orNone(this.request<Values>('GET', `/assistants/${id}/schemas`), 'its schemas', missing),
        ]);
        return {
          graphId: (assistant as Values).graph_id as string,
          assistant,
          drawing: plain ? { plain, xray: xray ?? plain } : undefined,
          schemas,
          missing,
        };
      }),
    );
  }

  /**
   * The thread a stateless run ran on (the recorder asked the upstream to keep it): the newest
   * threads are asked for the run, newest first (the run's own is the newest but for other
   * clients' threads made since); undefined when none of them has it.
   */
  async threadOfRun(runId: string): Promise<string | undefined> {
    const threads = await this.request<{ thread_id: string }[]>('POST', '/threads/search', {
      limit: 20,
      sort_by: 'created_at',
      sort_order: 'desc',
    });
    for (const { thread_id } of threads) {
      const { status } = await this.send('GET', `/threads/${encodeURIComponent(thread_id)}/runs/${encodeURIComponent(runId)}`);
      if (status === 200) return thread_id;
    }
    return undefined;
  }

  /** Whether a run of a thread has ended. */
  async runEnded(threadId: string, runId: string): Promise<boolean> {
    const run = await this.request<{ status: string }>('GET', `/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}`);
    return run.status !== 'pending' && run.status !== 'running';
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.send('DELETE', `/threads/${encodeURIComponent(threadId)}`);
  }

  /** A thread's runs, oldest first. */
  async runs(threadId: string): Promise<UpstreamRun[]> {
    const runs = await this.request<UpstreamRun[]>('GET', `/threads/${encodeURIComponent(threadId)}/runs?limit=1000`);
    return runs.sort((a, b) => (a.created_at === b.created_at ? (a.run_id < b.run_id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
  }

  /** A thread's history, oldest first: its root checkpoints, or those of the subgraph at `namespace`. */
  async history(threadId: string, namespace = ''): Promise<UpstreamState[]> {
    const body = namespace === '' ? { limit: 1000 } : { limit: 1000, checkpoint: { checkpoint_ns: namespace } };
    const states = await this.request<UpstreamState[]>('POST', `/threads/${encodeURIComponent(threadId)}/history`, body);
    return states.reverse();
  }
}
