// Deployments, revisions, sandbox pools and OAuth providers in SQLite, always scoped by tenant:
// a lookup with another tenant's ID finds nothing, which the handlers answer with a plain 404.
import type {
  DeploymentSource,
  OAuthProvider,
  RevisionStatus,
  SandboxPool,
  SourceConfig,
  SourceRevisionConfig,
} from '@agentplane/control-plane';
import type { CommitGroup } from '../store/commit-group.js';
import type { Db } from '../store/database.js';
import type { RevisionClock } from './revision-lifecycle.js';
import type { RevisionLogContext } from './revision-log-script.js';

export interface DeploymentRow {
  id: string;
  tenant_id: string;
  name: string;
  source: DeploymentSource;
  source_config: SourceConfig;
  /** Names only: the emulator never stores a secret's value (migration 2 removed older ones). */
  secrets: { name: string }[];
  latest_revision_id: string;
  created_at: string;
  updated_at: string;
}

export interface RevisionRow extends RevisionClock {
  id: string;
  deployment_id: string;
  seq: number;
  source: DeploymentSource;
  /** As requested; `repo_commit_sha` is derived when the revision is read. */
  source_revision_config: Omit<SourceRevisionConfig, 'repo_commit_sha'>;
  created_at: string;
  /** What its logs say about the deployment, as it was when the revision was created (null in files before migration 9). */
  log_context: RevisionLogContext | null;
  /** The revision whose build it deploys (a redeploy of a built git revision); null when it builds its own or is a container. */
  image_from: string | null;
}

type Raw<T, JsonKeys extends keyof T> = Omit<T, JsonKeys> & { [K in JsonKeys]: string };
type RawRevision = Raw<Omit<RevisionRow, 'log_context'>, 'source_revision_config' | 'plan'> & { log_context: string | null };

export class ControlPlaneStore {
  private readonly s;

  constructor(
    db: Db,
    private readonly commits: CommitGroup,
  ) {
    this.s = {
      getDeployment: db.prepare('SELECT * FROM deployments WHERE tenant_id = ? AND id = ?'),
      findDeploymentByName: db.prepare('SELECT * FROM deployments WHERE tenant_id = ? AND name = ?'),
      listDeployments: db.prepare('SELECT * FROM deployments WHERE tenant_id = ? ORDER BY created_at DESC, id DESC'),
      deleteDeployment: db.prepare('DELETE FROM deployments WHERE tenant_id = ? AND id = ?'),
      insertDeployment: db.prepare(
        'INSERT INTO deployments (id, tenant_id, name, source, source_config, secrets, latest_revision_id, created_at, updated_at) VALUES (@id, @tenant_id, @name, @source, @source_config, @secrets, @latest_revision_id, @created_at, @updated_at)',
      ),
      updateDeployment: db.prepare(
        'UPDATE deployments SET source_config = @source_config, secrets = @secrets, latest_revision_id = @latest_revision_id, updated_at = @updated_at WHERE id = @id',
      ),
      insertRevision: db.prepare(
        'INSERT INTO revisions (id, deployment_id, seq, source, source_revision_config, created_at, started_ms, step_ms, plan, superseded_ms, log_context, image_from) VALUES (@id, @deployment_id, @seq, @source, @source_revision_config, @created_at, @started_ms, @step_ms, @plan, @superseded_ms, @log_context, @image_from)',
      ),
      nextSeq: db.prepare('SELECT coalesce(max(seq), 0) + 1 FROM revisions WHERE deployment_id = ?').pluck(),
      revisions: db.prepare('SELECT * FROM revisions WHERE deployment_id = ? ORDER BY seq DESC'),
      getRevision: db.prepare('SELECT * FROM revisions WHERE deployment_id = ? AND id = ?'),
      supersede: db.prepare('UPDATE revisions SET superseded_ms = ? WHERE id = ?'),
      getPool: db.prepare('SELECT * FROM sandbox_pools WHERE tenant_id = ? AND name = ?'),
      upsertPool: db.prepare(
        `INSERT INTO sandbox_pools (tenant_id, name, id, template_name, replicas, created_at, updated_at) VALUES (@tenant_id, @name, @id, @template_name, @replicas, @created_at, @updated_at)
         ON CONFLICT (tenant_id, name) DO UPDATE SET template_name = excluded.template_name, replicas = excluded.replicas, updated_at = excluded.updated_at
         WHERE template_name IS NOT excluded.template_name OR replicas IS NOT excluded.replicas`,
      ),
      getProvider: db.prepare('SELECT * FROM oauth_providers WHERE tenant_id = ? AND provider_id = ?'),
      upsertProvider: db.prepare(
        `INSERT INTO oauth_providers (tenant_id, provider_id, record, created_at, updated_at) VALUES (@tenant_id, @provider_id, @record, @created_at, @updated_at)
         ON CONFLICT (tenant_id, provider_id) DO UPDATE SET record = excluded.record, updated_at = excluded.updated_at WHERE record IS NOT excluded.record`,
      ),
    };
  }

  transaction<T>(work: () => T): T {
    return this.commits.transaction(work);
  }

  getDeployment(tenantId: string, id: string): DeploymentRow | undefined {
    return parseDeployment(this.s.getDeployment.get(tenantId, id) as Raw<DeploymentRow, 'source_config' | 'secrets'> | undefined);
  }

  findDeploymentByName(tenantId: string, name: string): DeploymentRow | undefined {
    return parseDeployment(this.s.findDeploymentByName.get(tenantId, name) as Raw<DeploymentRow, 'source_config' | 'secrets'> | undefined);
  }

  /** The tenant's deployments, newest first (`created_at`, then `id`). */
  listDeployments(tenantId: string): DeploymentRow[] {
    return (this.s.listDeployments.all(tenantId) as Raw<DeploymentRow, 'source_config' | 'secrets'>[]).map((raw) => parseDeployment(raw)!);
  }

  /** Deletes the deployment; its revisions go with it (foreign key cascade). */
  deleteDeployment(tenantId: string, id: string): boolean {
    return this.s.deleteDeployment.run(tenantId, id).changes > 0;
  }

  insertDeployment(row: DeploymentRow): void {
    this.s.insertDeployment.run({ ...row, source_config: JSON.stringify(row.source_config), secrets: JSON.stringify(row.secrets) });
  }

  updateDeployment(row: DeploymentRow): void {
    this.s.updateDeployment.run({ ...row, source_config: JSON.stringify(row.source_config), secrets: JSON.stringify(row.secrets) });
  }

  nextRevisionSeq(deploymentId: string): number {
    return this.s.nextSeq.get(deploymentId) as number;
  }

  insertRevision(row: RevisionRow): void {
    this.s.insertRevision.run({
      ...row,
      source_revision_config: JSON.stringify(row.source_revision_config),
      plan: JSON.stringify(row.plan),
      log_context: row.log_context && JSON.stringify(row.log_context),
    });
  }

  /** Newest first. */
  revisions(deploymentId: string): RevisionRow[] {
    return (this.s.revisions.all(deploymentId) as RawRevision[]).map(parseRevision);
  }

  getRevision(deploymentId: string, revisionId: string): RevisionRow | undefined {
    const raw = this.s.getRevision.get(deploymentId, revisionId) as RawRevision | undefined;
    return raw && parseRevision(raw);
  }

  markSuperseded(revisionId: string, atMs: number): void {
    this.s.supersede.run(atMs, revisionId);
  }

  getPool(tenantId: string, name: string): SandboxPool | undefined {
    const row = this.s.getPool.get(tenantId, name) as (SandboxPool & { tenant_id: string }) | undefined;
    if (!row) return undefined;
    const { tenant_id: _tenant, ...pool } = row;
    return pool;
  }

  /** Registers a configured pool; keeps its ID and creation time across restarts. */
  upsertPool(tenantId: string, pool: SandboxPool): void {
    this.s.upsertPool.run({ tenant_id: tenantId, ...pool });
  }

  getProvider(tenantId: string, providerId: string): OAuthProvider | undefined {
    const row = this.s.getProvider.get(tenantId, providerId) as { record: string; created_at: string; updated_at: string } | undefined;
    return row && { ...JSON.parse(row.record), created_at: row.created_at, updated_at: row.updated_at };
  }

  upsertProvider(tenantId: string, provider: OAuthProvider): void {
    const { created_at, updated_at, ...record } = provider;
    this.s.upsertProvider.run({
      tenant_id: tenantId,
      provider_id: provider.provider_id,
      record: JSON.stringify(record),
      created_at,
      updated_at,
    });
  }
}

function parseDeployment(raw: Raw<DeploymentRow, 'source_config' | 'secrets'> | undefined): DeploymentRow | undefined {
  return raw && { ...raw, source_config: JSON.parse(raw.source_config), secrets: JSON.parse(raw.secrets) };
}

function parseRevision(raw: RawRevision): RevisionRow {
  return {
    ...raw,
    source_revision_config: JSON.parse(raw.source_revision_config),
    plan: JSON.parse(raw.plan) as RevisionStatus[],
    log_context: raw.log_context === null ? null : JSON.parse(raw.log_context),
  };
}
