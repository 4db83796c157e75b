// What a command runs with: its parsed flags and arguments, where to write, the connection to
// the control plane (built lazily, so `--help` and usage errors never need credentials), and the
// progress rendering that suits the terminal.
import type { ControlPlaneClient, ControlPlaneClientOptions } from '@agentplane/control-plane';
import { createControlPlaneClient } from '@agentplane/control-plane';
import { UsageError } from './errors.js';
import type { FlagName, FlagSpec } from './options.js';
import { FLAGS } from './options.js';
import type { Progress, Writer } from './progress.js';
import { LiveProgress, PlainProgress } from './progress.js';
import { VERSION } from './version.js';

/** Everything run() takes from its environment, injectable for tests. */
export interface RunOptions {
  /** Environment variables (the bin passes process.env). */
  env?: Record<string, string | undefined>;
  stdout?: Writer;
  stderr?: Writer;
  /** fetch used for every request (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Whether stderr is an interactive terminal: live status line instead of plain lines (unless CI is set). */
  isTTY?: boolean;
  /** Terminal width, for the live line. */
  columns?: number;
  /** Aborting it (SIGINT) stops a wait: exit 130, the deployment untouched. Pass an InterruptedError as the reason to pick the exit code. */
  signal?: AbortSignal;
  /** Clock for elapsed times (default Date.now). */
  now?: () => number;
}

export type FlagValues = Partial<Record<FlagName, string | boolean | string[] | undefined>>;

export class Context {
  readonly env: Record<string, string | undefined>;
  readonly stdout: Writer;
  readonly stderr: Writer;
  readonly signal: AbortSignal | undefined;
  readonly now: () => number;
  /** Secret values this run knows (its --secret values, its credentials): masked in every log line it prints. */
  readonly secretValues = new Set<string>();
  private connection: { client: ControlPlaneClient; baseUrl: string; hasApiKey: boolean } | undefined;

  constructor(
    /** The command as typed, such as `deploy` or `pool get` (for messages). */
    readonly command: string,
    readonly flags: FlagValues,
    readonly args: string[],
    private readonly options: RunOptions,
  ) {
    this.env = options.env ?? {};
    this.stdout = options.stdout ?? { write: () => undefined };
    this.stderr = options.stderr ?? { write: () => undefined };
    this.signal = options.signal;
    this.now = options.now ?? Date.now;
  }

  /** The fetch the run was given, if any (tests inject one). */
  get fetch(): RunOptions['fetch'] {
    return this.options.fetch;
  }

  get json(): boolean {
    return this.flags.json === true;
  }

  /** A string flag, falling back to its environment variable, then its default. Empty counts as absent. */
  string(name: FlagName): string | undefined {
    const value = this.flags[name];
    if (typeof value === 'string' && value !== '') return value;
    const spec: FlagSpec = FLAGS[name];
    const fromEnv = spec.env ? this.env[spec.env] : undefined;
    if (fromEnv) return fromEnv;
    return spec.default;
  }

  list(name: FlagName): string[] {
    const value = this.flags[name];
    return Array.isArray(value) ? value : [];
  }

  /** CI mode: plain progress lines. On when stderr is not a TTY, or CI is set (and not "false"/"0"). */
  get plain(): boolean {
    const ci = this.env.CI;
    return !this.options.isTTY || (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0');
  }

  progress(): Progress {
    return this.plain ? new PlainProgress(this.stderr, this.now) : new LiveProgress(this.stderr, this.now, this.options.columns);
  }

  /** Writes a line of narration to stderr. */
  note(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  get baseUrl(): string {
    return this.connect('any').baseUrl;
  }

  /**
   * The control plane client. `apiKey`: the command calls operations that accept only an API key
   * (all but getRevision); without one it is a usage error, before any request.
   */
  client(needs: 'api-key' | 'any' = 'api-key'): ControlPlaneClient {
    return this.connect(needs).client;
  }

  hasApiKey(): boolean {
    return this.connect('any').hasApiKey;
  }

  private connect(needs: 'api-key' | 'any'): { client: ControlPlaneClient; baseUrl: string; hasApiKey: boolean } {
    if (!this.connection) {
      const baseUrl = this.string('base-url');
      if (!baseUrl)
        throw new UsageError(
          'no control plane URL',
          'pass --base-url <url> or set AGENTPLANE_BASE_URL (the control plane root, such as https://api.example.com).',
        );
      let url: URL;
      try {
        url = new URL(baseUrl);
      } catch {
        throw new UsageError(
          `--base-url ${JSON.stringify(baseUrl)} is not a URL`,
          'give the control plane root URL, such as https://api.example.com.',
        );
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new UsageError(`--base-url must be an http(s) URL, got ${url.protocol}`, 'such as https://api.example.com.');
      if (/\/v2\/?$/.test(url.pathname)) {
        throw new UsageError(
          `--base-url ends with /v2: give the root URL instead`,
          `use ${baseUrl.replace(/\/v2\/?$/, '')}; the CLI adds /v2/... itself.`,
        );
      }
      const apiKey = this.string('api-key');
      const bearerToken = this.string('bearer-token');
      const tenantId = this.string('tenant-id');
      for (const credential of [apiKey, bearerToken]) if (credential) this.secretValues.add(credential);
      if (apiKey && bearerToken) {
        throw new UsageError(
          'both an API key and a bearer token are set',
          'give one credential: unset AGENTPLANE_BEARER_TOKEN (or drop --bearer-token), or drop the API key.',
        );
      }
      if (!apiKey && !bearerToken && !tenantId) {
        throw new UsageError('no credentials', 'pass --api-key <key> or set AGENTPLANE_API_KEY.');
      }
      const credentials: ControlPlaneClientOptions = apiKey
        ? { apiKey, baseUrl }
        : bearerToken
          ? { bearerToken, baseUrl }
          : { tenantId: tenantId!, baseUrl };
      // The tenant ID goes along with another credential, as the control plane's X-Tenant-Id.
      const headers: Record<string, string> = { 'User-Agent': `agentplane-cli/${VERSION}` };
      if (tenantId && (apiKey || bearerToken)) headers['X-Tenant-Id'] = tenantId;
      const client = createControlPlaneClient({ ...credentials, headers, ...(this.options.fetch ? { fetch: this.options.fetch } : {}) });
      this.connection = { client, baseUrl: url.href.replace(/\/+$/, ''), hasApiKey: Boolean(apiKey) };
    }
    if (needs === 'api-key' && !this.connection.hasApiKey) {
      throw new UsageError(
        `\`agentplane ${this.command}\` needs an API key`,
        'pass --api-key <key> or set AGENTPLANE_API_KEY. A tenant ID or bearer token alone only reads one revision: `agentplane wait <deployment-id> <revision-id>`.',
      );
    }
    return this.connection;
  }
}
