// A stateful fake of the control plane as a fetch function (and, through serve(), as an HTTP
// server): deployments, revisions whose statuses advance one step per poll along a script, the
// listings, delete, pools and providers, auth and the 404/422 shapes of the spec. It is what the
// CLI's unit tests script answers with; the emulator is the real thing.
//
// Outcome of a revision: chosen by the image URI or git ref it was made from, by a suffix
// `--<outcome>` (`registry.test/app:1.0.0--build-failed`); no suffix deploys; `--never` stays
// BUILDING. A new revision supersedes (SKIPPED) the ones still in progress.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deployment, Revision, RevisionStatus } from '@agentplane/control-plane';

export const OUTCOMES = ['deployed', 'create-failed', 'build-failed', 'deploy-failed', 'interrupted', 'never'] as const;
export type FakeOutcome = (typeof OUTCOMES)[number];

const SCRIPTS: Record<FakeOutcome, (git: boolean) => RevisionStatus[]> = {
  deployed: (git) =>
    git
      ? ['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']
      : ['QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED'],
  'create-failed': () => ['CREATING', 'CREATE_FAILED'],
  'build-failed': () => ['QUEUED', 'BUILDING', 'BUILD_FAILED'],
  'deploy-failed': () => ['QUEUED', 'DEPLOYING', 'DEPLOY_FAILED'],
  interrupted: () => ['QUEUED', 'BUILDING', 'INTERRUPTED'],
  never: () => ['QUEUED', 'BUILDING'],
};

/** The fake changes what clients see as read-only. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface StoredRevision {
  revision: Mutable<Revision>;
  script: RevisionStatus[];
  step: number;
}

interface Stored {
  deployment: Mutable<Deployment>;
  /** Newest first. */
  revisions: StoredRevision[];
  secrets: { name: string; value: string }[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: any;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class FakeControlPlane {
  readonly apiKey: string;
  readonly tenantId = 'tenant-ci';
  readonly bearerToken = 'eyJ.fake.token';
  readonly stored = new Map<string, Stored>();
  readonly requests: RecordedRequest[] = [];
  private ids = 0;
  private clock = Date.parse('2026-11-20T08:00:00.000Z');

  constructor(options: { apiKey?: string } = {}) {
    this.apiKey = options.apiKey ?? 'fake-api-key';
  }

  /** The fetch the CLI is given. */
  readonly fetch = async (request: Request): Promise<Response> => {
    // Like the real fetch: an aborted request is never sent.
    request.signal.throwIfAborted();
    const url = new URL(request.url);
    const text = await request.text();
    const body = text ? JSON.parse(text) : undefined;
    this.requests.push({ method: request.method, path: url.pathname, query: url.searchParams, headers: request.headers, body });
    return this.handle(request.method, url, request.headers, body);
  };

  /** Serves the fake over HTTP on a free port, for the bin and for tests through the global fetch. */
  async serve(): Promise<{ url: string; close: () => Promise<void> }> {
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = `http://${req.headers.host}${req.url}`;
      const headers = new Headers(
        Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : [])),
      );
      const body = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
      const response = await this.fetch(new Request(url, { method: req.method!, headers, ...(body ? { body } : {}) }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /** The requests that changed something. */
  writes(): string[] {
    return this.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
  }

  byName(name: string): Stored | undefined {
    return [...this.stored.values()].find((s) => s.deployment.name === name);
  }

  /** Adds a deployment directly, as if created earlier. */
  seed(body: any): Deployment {
    return this.create(body);
  }

  private handle(method: string, url: URL, headers: Headers, body: any): Response {
    const parts = url.pathname.split('/').filter(Boolean); // v2, deployments, id, revisions, id
    const isGetRevision = method === 'GET' && parts[1] === 'deployments' && parts[3] === 'revisions' && parts.length === 5;
    const denied = this.authenticate(headers, isGetRevision);
    if (denied) return denied;

    if (parts[0] !== 'v2') return json(404, { detail: 'Not Found' });
    if (parts[1] === 'sandboxes' && parts[2] === 'pools' && parts.length === 4 && method === 'GET') return this.pool(parts[3]!);
    if (parts[1] === 'auth' && parts[2] === 'providers' && parts.length === 4 && method === 'GET') return this.provider(parts[3]!);
    if (parts[1] !== 'deployments') return json(404, { detail: 'Not Found' });

    if (parts.length === 2) {
      if (method === 'GET') return this.list(url.searchParams);
      if (method === 'POST') return this.post(body);
    }
    const deploymentId = parts[2]!;
    if (!UUID.test(deploymentId)) return invalid(['path', 'deployment_id'], 'Input should be a valid UUID', 'uuid_parsing');
    const stored = this.stored.get(deploymentId);
    const missing = json(404, { detail: `Deployment ID ${deploymentId} not found.` });
    if (parts.length === 3) {
      if (!stored) return missing;
      if (method === 'GET') return json(200, stored.deployment);
      if (method === 'PATCH') return this.patch(stored, body);
      if (method === 'DELETE') {
        this.stored.delete(deploymentId);
        return new Response(null, { status: 204 });
      }
    }
    if (parts[3] === 'revisions' && method === 'GET') {
      if (parts.length === 5 && !UUID.test(parts[4]!))
        return invalid(['path', 'revision_id'], 'Input should be a valid UUID', 'uuid_parsing');
      if (!stored) return missing;
      if (parts.length === 4) return this.listRevisions(stored, url.searchParams);
      const entry = stored.revisions.find((r) => r.revision.id === parts[4]);
      if (!entry) return json(404, { detail: `Revision ID ${parts[4]} not found.` });
      return json(200, this.poll(stored, entry));
    }
    return json(405, { detail: 'Method Not Allowed' });
  }

  private authenticate(headers: Headers, isGetRevision: boolean): Response | undefined {
    const key = headers.get('x-api-key');
    if (key === this.apiKey) return undefined;
    if (isGetRevision && (headers.get('x-tenant-id') === this.tenantId || headers.get('authorization') === `Bearer ${this.bearerToken}`))
      return undefined;
    return json(401, { detail: key === null ? 'Missing X-Api-Key header.' : 'Invalid API key.' });
  }

  private list(query: URLSearchParams): Response {
    const paging = this.paging(query);
    if (paging instanceof Response) return paging;
    const filter = (query.get('name_contains') ?? '').toLowerCase();
    const matches = [...this.stored.values()]
      .map((s) => s.deployment)
      .filter((d) => d.name.toLowerCase().includes(filter))
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
    return json(200, { resources: matches.slice(paging.offset, paging.offset + paging.limit), offset: paging.offset });
  }

  private listRevisions(stored: Stored, query: URLSearchParams): Response {
    const paging = this.paging(query);
    if (paging instanceof Response) return paging;
    const status = query.get('status');
    const matches = stored.revisions.map((r) => r.revision).filter((r) => !status || r.status === status);
    return json(200, { resources: matches.slice(paging.offset, paging.offset + paging.limit), offset: paging.offset });
  }

  private paging(query: URLSearchParams): { limit: number; offset: number } | Response {
    const limit = Number(query.get('limit') ?? 20);
    const offset = Number(query.get('offset') ?? 0);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return invalid(['query', 'limit'], 'Input should be less than or equal to 100', 'less_than_equal');
    if (!Number.isInteger(offset) || offset < 0)
      return invalid(['query', 'offset'], 'Input should be greater than or equal to 0', 'greater_than_equal');
    return { limit, offset };
  }

  private post(body: any): Response {
    const config = body?.source_revision_config ?? {};
    if (body?.source === 'external_container' && !config.image_uri)
      return invalid(['body', 'source_revision_config', 'image_uri'], 'Field required for source external_container', 'missing');
    if (body?.source === 'git_host') {
      if (!body.source_config?.repo_url)
        return invalid(['body', 'source_config', 'repo_url'], 'Field required for source git_host', 'missing');
      if (config.repo_ref?.startsWith('refs/tags/') && body.source_config.build_on_push === true) {
        return invalid(['body', 'source_config', 'build_on_push'], 'Input should be False for a tag ref', 'literal_error');
      }
    }
    // As the emulator answers it: names are unique within the tenant.
    if (this.byName(body.name))
      return invalid(['body', 'name'], `A deployment named ${body.name} already exists in this tenant`, 'value_error');
    return json(201, this.create(body));
  }

  private create(body: any): Deployment {
    const now = this.tick();
    const git = body.source === 'git_host';
    const deployment: Mutable<Deployment> = {
      id: this.uuid(),
      name: body.name,
      source: body.source,
      source_config: {
        integration_id: null,
        repo_url: body.source_config?.repo_url ?? null,
        deployment_type: 'dev',
        build_on_push: body.source_config?.build_on_push ?? false,
        custom_url: null,
        resource_spec: null,
      },
      source_revision_config: {
        repo_ref: git ? body.source_revision_config.repo_ref : null,
        graph_config_path: git ? body.source_revision_config.graph_config_path : null,
        image_uri: git ? null : body.source_revision_config.image_uri,
        repo_commit_sha: null,
      },
      secrets: (body.secrets ?? []).map((s: { name: string }) => ({ name: s.name })),
      latest_revision_id: '',
      active_revision_id: null,
      created_at: now,
      updated_at: now,
    };
    const stored: Stored = { deployment, revisions: [], secrets: body.secrets ?? [] };
    this.stored.set(deployment.id, stored);
    this.addRevision(stored);
    return deployment;
  }

  private patch(stored: Stored, body: any): Response {
    if (body && 'source' in body) return invalid(['body', 'source'], 'Extra inputs are not permitted', 'extra_forbidden');
    const d = stored.deployment;
    const config = body?.source_revision_config ?? {};
    if (d.source === 'external_container' && (config.repo_ref || config.graph_config_path))
      return invalid(['body', 'source_revision_config', 'repo_ref'], 'Not allowed for source external_container', 'extra_forbidden');
    if (d.source === 'git_host' && config.image_uri)
      return invalid(['body', 'source_revision_config', 'image_uri'], 'Not allowed for source git_host', 'extra_forbidden');
    if (body.source_config?.repo_url) d.source_config.repo_url = body.source_config.repo_url;
    if (body.source_config?.build_on_push !== undefined) d.source_config.build_on_push = body.source_config.build_on_push;
    if (body.secrets) {
      stored.secrets = body.secrets;
      d.secrets = body.secrets.map((s: { name: string }) => ({ name: s.name }));
    }
    d.updated_at = this.tick();
    if (config.image_uri || config.repo_ref || config.graph_config_path) {
      d.source_revision_config = {
        ...d.source_revision_config,
        ...(config.image_uri ? { image_uri: config.image_uri } : {}),
        ...(config.repo_ref ? { repo_ref: config.repo_ref } : {}),
        ...(config.graph_config_path ? { graph_config_path: config.graph_config_path } : {}),
      };
      this.addRevision(stored);
    }
    return json(200, d);
  }

  /** A new latest revision; the ones still in progress are superseded (SKIPPED). */
  private addRevision(stored: Stored): void {
    const d = stored.deployment;
    for (const entry of stored.revisions) {
      if (!isTerminal(entry.revision.status)) {
        entry.revision.status = 'SKIPPED';
        entry.script = ['SKIPPED'];
        entry.step = 0;
      }
    }
    const source = d.source_revision_config.image_uri ?? d.source_revision_config.repo_ref ?? '';
    const chosen = OUTCOMES.find((o) => source.endsWith(`--${o}`)) ?? 'deployed';
    const script = SCRIPTS[chosen](d.source === 'git_host');
    const now = this.tick();
    const revision: Mutable<Revision> = {
      id: this.uuid(),
      created_at: now,
      updated_at: now,
      status: script[0]!,
      source: d.source,
      source_revision_config: { ...d.source_revision_config },
    };
    stored.revisions.unshift({ revision, script, step: 0 });
    d.latest_revision_id = revision.id;
  }

  /** Each poll moves the revision one step along its script. */
  private poll(stored: Stored, entry: StoredRevision): Revision {
    const status = entry.script[Math.min(entry.step, entry.script.length - 1)]!;
    entry.step++;
    if (status !== entry.revision.status) {
      entry.revision.status = status;
      entry.revision.updated_at = this.tick();
      if (status === 'DEPLOYED') stored.deployment.active_revision_id = entry.revision.id;
    }
    return entry.revision;
  }

  private pool(name: string): Response {
    if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name))
      return invalid(['path', 'name'], "String should match pattern '^[a-z]([-a-z0-9]*[a-z0-9])?$'", 'string_pattern_mismatch');
    if (name !== 'python-pool') return json(404, { detail: { error: 'NotFound', message: 'Resource not found.' } });
    return json(200, {
      name,
      template_name: 'python-3-12',
      replicas: 2,
      id: '6c5b4a39-2817-4f06-9e5d-4c3b2a190f8e',
      created_at: '2026-11-01T12:00:00Z',
      updated_at: '2026-11-12T16:42:09Z',
    });
  }

  private provider(id: string): Response {
    if (id !== 'github') return json(404, { detail: `OAuth provider ${id} not found.` });
    return json(200, {
      id: 'oap_01',
      organization_id: 'org_01',
      provider_id: 'github',
      name: 'GitHub',
      client_id: 'Iv23li',
      auth_url: 'https://github.com/login/oauth/authorize',
      token_url: 'https://github.com/login/oauth/access_token',
      uses_pkce: false,
      code_challenge_method: null,
      created_at: '2026-10-02T08:45:11.000Z',
      updated_at: '2026-10-02T08:45:11.000Z',
      provider_type: 'oauth2',
      mcp_server_url: null,
      token_endpoint_auth_method: 'client_secret_post',
      is_dynamic_client: false,
    });
  }

  private uuid(): string {
    const n = (++this.ids).toString(16).padStart(12, '0');
    return `0f0e0d0c-0b0a-4000-8000-${n}`;
  }

  private tick(): string {
    this.clock += 1_000;
    return new Date(this.clock).toISOString();
  }
}

function isTerminal(status: RevisionStatus): boolean {
  return ['DEPLOYED', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'INTERRUPTED', 'SKIPPED'].includes(status);
}

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function invalid(loc: (string | number)[], msg: string, type: string): Response {
  return json(422, { detail: [{ loc, msg, type }] });
}
