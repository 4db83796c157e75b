// The control plane: one handler per operationId of spec/control-plane. Requests arrive
// validated against the spec (DeploymentCreate's if/then rules included); handlers add the rules
// that depend on stored state (unique names, a PATCH against the deployment's source, the tag
// rule on the merged configuration, log cursors) and run the revision lifecycle and its logs.
import { createHash } from 'node:crypto';
import type {
  operations as ClientOperations,
  Deployment,
  DeploymentCreate,
  ResourceSpec,
  Revision,
  SourceConfig,
  SourceRevisionConfig,
} from '@agentplane/control-plane';
import type { EmulatorConfig } from '../config/config.js';
import type { ValidationIssue } from '../contract/validation-errors.js';
import { DeploymentTypeSchema } from '../generated/control-plane/contract.js';
import type { api } from '../generated/control-plane/operations.js';
import type { operations as ServerOperations } from '../generated/control-plane/server-types.js';
import type { HandlerMap } from '../http/handler-types.js';
import { HttpError, validationError } from '../http/http-error.js';
import { canonicalUuid, newId } from '../shared/ids.js';
import type { ControlPlaneStore, DeploymentRow, RevisionRow } from './control-plane-store.js';
import { globToRegExp, isTerminal, outcomeRuleFor, planFor, reached, statusAt } from './revision-lifecycle.js';
import { logPage } from './revision-log-pages.js';
import type { LogLine, RevisionLogContext } from './revision-log-script.js';
import { revisionLogScript, visibleLog } from './revision-log-script.js';
import type { Tenant } from './tenants.js';

export interface LifecycleOptions {
  revisionStepMs: number;
  revisionOutcomes: NonNullable<EmulatorConfig['revision_outcomes']>;
  /** The clock; tests may move it. */
  now?: () => number;
}

/** Resources of a deployment type when `resource_spec` leaves a field out (the spec's `x-resource-defaults`). */
const RESOURCE_DEFAULTS: Readonly<Record<SourceConfig['deployment_type'], ResourceSpec>> = DeploymentTypeSchema['x-resource-defaults'];

export type ControlPlaneHandlers = HandlerMap<typeof api, ServerOperations, ClientOperations, Tenant>;

export function controlPlaneHandlers(store: ControlPlaneStore, options: LifecycleOptions): ControlPlaneHandlers {
  // One clock for every control-plane timestamp, so a revision's status times and its
  // created_at agree (tests move it).
  const now = options.now ?? Date.now;
  const nowIso = () => new Date(now()).toISOString();
  const outcomeRules = options.revisionOutcomes.map((rule) => ({
    pattern: globToRegExp(rule.match),
    status: rule.status,
    log:
      rule.log?.map((line): LogLine => (typeof line === 'string' ? { level: 'ERROR', message: line } : { level: 'ERROR', ...line })) ??
      null,
  }));
  const deploymentNotFound = (id: string) => new HttpError(404, `Deployment ID ${id} not found.`);
  const requireDeployment = (tenant: Tenant, id: string) => store.getDeployment(tenant.id, id) ?? throwError(deploymentNotFound(id));
  const requireRevision = (deployment: DeploymentRow, id: string) =>
    store.getRevision(deployment.id, id) ?? throwError(new HttpError(404, `Revision ID ${id} not found.`));

  const toRevision = (row: RevisionRow, at: number): Revision => {
    const { status, since_ms } = statusAt(row, at);
    return {
      id: row.id,
      created_at: row.created_at,
      updated_at: new Date(since_ms).toISOString(),
      status,
      source: row.source,
      source_revision_config: revisionConfig(row, at),
    };
  };

  const toDeployment = (row: DeploymentRow): Deployment => {
    const at = now();
    const revisions = store.revisions(row.id);
    const latest = revisions.find((r) => r.id === row.latest_revision_id)!;
    const active = revisions.find((r) => statusAt(r, at).status === 'DEPLOYED');
    return {
      id: row.id,
      name: row.name,
      source: row.source,
      source_config: row.source_config,
      source_revision_config: revisionConfig(latest, at),
      secrets: row.secrets.map(({ name }) => ({ name })),
      latest_revision_id: row.latest_revision_id,
      active_revision_id: active?.id ?? null,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  };

  /**
   * Creates the deployment's next revision and supersedes every unfinished older one. `imageFrom`
   * names the built revision whose image a git revision deploys instead of building its own.
   */
  const startRevision = (
    deployment: DeploymentRow,
    config: RevisionRow['source_revision_config'],
    { id = newId(), imageFrom = null }: { id?: string; imageFrom?: string | null } = {},
  ): RevisionRow => {
    const at = now();
    for (const older of store.revisions(deployment.id)) {
      if (!isTerminal(statusAt(older, at).status)) store.markSuperseded(older.id, at);
    }
    const rule = outcomeRuleFor(outcomeRules, [config.image_uri, config.repo_ref]);
    const row: RevisionRow = {
      id,
      deployment_id: deployment.id,
      seq: store.nextRevisionSeq(deployment.id),
      source: deployment.source,
      source_revision_config: config,
      created_at: new Date(at).toISOString(),
      plan: planFor(deployment.source, rule?.status ?? 'DEPLOYED', imageFrom !== null),
      started_ms: at,
      step_ms: options.revisionStepMs,
      superseded_ms: null,
      log_context: logContext(deployment, rule?.log ?? null),
      image_from: imageFrom,
    };
    store.insertRevision(row);
    return row;
  };

  /** The deployment's latest revision is now `revision`. */
  const advanceLatest = (deployment: DeploymentRow, revision: RevisionRow): DeploymentRow => {
    const next = { ...deployment, latest_revision_id: revision.id, updated_at: revision.created_at };
    store.updateDeployment(next);
    return next;
  };

  return {
    createDeployment({ body: request, principal }) {
      const issues: ValidationIssue[] = [...secretIssues(request.secrets)];
      const sourceConfig = fullSourceConfig(request.source_config ?? {}, null, issues);
      if (issues.length) throw validationError(issues);
      return store.transaction(() => {
        if (store.findDeploymentByName(principal.id, request.name)) {
          throw validationError([
            { loc: ['body', 'name'], msg: `A deployment named ${request.name} already exists in this tenant`, type: 'value_error' },
          ]);
        }
        const created = nowIso();
        const deployment: DeploymentRow = {
          id: newId(),
          tenant_id: principal.id,
          name: request.name,
          source: request.source,
          source_config: sourceConfig,
          secrets: secretNames(request.secrets ?? []),
          latest_revision_id: newId(),
          created_at: created,
          updated_at: created,
        };
        const requested = request.source_revision_config ?? {};
        const revisionConfig = {
          repo_ref: requested.repo_ref ?? null,
          graph_config_path: requested.graph_config_path ?? null,
          image_uri: requested.image_uri ?? null,
        };
        store.insertDeployment(deployment);
        startRevision(deployment, revisionConfig, { id: deployment.latest_revision_id });
        return { status: 201, body: toDeployment(deployment) };
      });
    },

    listDeployments({ query, principal }) {
      const needle = query.name_contains?.toLowerCase() ?? '';
      const ids = query.deployment_ids === undefined ? undefined : new Set(query.deployment_ids.split(',').map(canonicalUuid));
      const at = now();
      const latestStatus = (d: DeploymentRow) => statusAt(store.getRevision(d.id, d.latest_revision_id)!, at).status;
      const matching = store
        .listDeployments(principal.id)
        .filter(
          (d) =>
            d.name.toLowerCase().includes(needle) &&
            (ids === undefined || ids.has(d.id)) &&
            (query.status === undefined || latestStatus(d) === query.status),
        );
      const page = matching.slice(query.offset, query.offset + query.limit);
      return { status: 200, body: { resources: page.map(toDeployment), offset: query.offset } };
    },

    deleteDeployment({ path, principal }) {
      const id = canonicalUuid(path.deployment_id);
      if (!store.deleteDeployment(principal.id, id)) throw deploymentNotFound(id);
      return { status: 204 };
    },

    listRevisions({ path, query, principal }) {
      const deployment = requireDeployment(principal, canonicalUuid(path.deployment_id));
      const at = now();
      // Revisions are numbered in creation order, so newest first is by `seq`.
      const revisions = store.revisions(deployment.id).map((row) => toRevision(row, at));
      const matching = query.status ? revisions.filter((r) => r.status === query.status) : revisions;
      return { status: 200, body: { resources: matching.slice(query.offset, query.offset + query.limit), offset: query.offset } };
    },

    getDeployment({ path, principal }) {
      return { status: 200, body: toDeployment(requireDeployment(principal, canonicalUuid(path.deployment_id))) };
    },

    updateDeployment({ path, body: request, principal }) {
      return store.transaction(() => {
        const deployment = requireDeployment(principal, canonicalUuid(path.deployment_id));
        const issues: ValidationIssue[] = [...secretIssues(request.secrets)];
        const requested = request.source_revision_config ?? {};
        const notFor = (field: 'repo_ref' | 'graph_config_path' | 'image_uri') =>
          issues.push({
            loc: ['body', 'source_revision_config', field],
            msg: `Not applicable to a deployment with source ${deployment.source}`,
            type: 'value_error',
          });
        if (deployment.source === 'git_host' && requested.image_uri != null) notFor('image_uri');
        if (deployment.source === 'external_container') {
          if (requested.repo_ref != null) notFor('repo_ref');
          if (requested.graph_config_path != null) notFor('graph_config_path');
        }
        const sourceConfig = request.source_config
          ? fullSourceConfig(request.source_config, deployment.source_config, issues)
          : deployment.source_config;
        const latest = store.getRevision(deployment.id, deployment.latest_revision_id)!;
        const nextConfig = {
          repo_ref: requested.repo_ref ?? latest.source_revision_config.repo_ref,
          graph_config_path: requested.graph_config_path ?? latest.source_revision_config.graph_config_path,
          image_uri: requested.image_uri ?? latest.source_revision_config.image_uri,
        };
        if (nextConfig.repo_ref?.startsWith('refs/tags/') && sourceConfig.build_on_push) {
          const loc =
            request.source_config?.build_on_push !== undefined
              ? ['body', 'source_config', 'build_on_push']
              : ['body', 'source_revision_config', 'repo_ref'];
          issues.push({ loc, msg: 'A tag ref (refs/tags/...) needs build_on_push false: tags are immutable', type: 'value_error' });
        }
        if (issues.length) throw validationError(issues);

        const updated = nowIso();
        const next: DeploymentRow = {
          ...deployment,
          source_config: sourceConfig,
          secrets: request.secrets ? secretNames(request.secrets) : deployment.secrets,
          updated_at: updated,
        };
        if (requested.repo_ref != null || requested.graph_config_path != null || requested.image_uri != null) {
          next.latest_revision_id = startRevision(next, nextConfig).id;
        }
        store.updateDeployment(next);
        return { status: 200, body: toDeployment(next) };
      });
    },

    getRevision({ path, principal }) {
      const deployment = requireDeployment(principal, canonicalUuid(path.deployment_id));
      return { status: 200, body: toRevision(requireRevision(deployment, canonicalUuid(path.revision_id)), now()) };
    },

    createRevision({ path, principal }) {
      return store.transaction(() => {
        const deployment = requireDeployment(principal, canonicalUuid(path.deployment_id));
        const latest = store.getRevision(deployment.id, deployment.latest_revision_id)!;
        const revision = startRevision(deployment, latest.source_revision_config);
        advanceLatest(deployment, revision);
        return { status: 201, body: toRevision(revision, now()) };
      });
    },

    redeployRevision({ path, principal }) {
      return store.transaction(() => {
        const deployment = requireDeployment(principal, canonicalUuid(path.deployment_id));
        const source = requireRevision(deployment, canonicalUuid(path.revision_id));
        // A git revision that was built is deployed from its image; one that never got an image builds again.
        const built = source.image_from ?? (source.source === 'git_host' && reached(source, 'AWAITING_DEPLOY', now()) ? source.id : null);
        const revision = startRevision(deployment, source.source_revision_config, { imageFrom: built });
        return { status: 200, body: toDeployment(advanceLatest(deployment, revision)) };
      });
    },

    listRevisionLogs({ path, query, principal }) {
      const deployment = requireDeployment(principal, canonicalUuid(path.deployment_id));
      const revision = requireRevision(deployment, canonicalUuid(path.revision_id));
      const script = revisionLogScript(
        { ...revision, commit: revision.source === 'git_host' ? buildCommit(revision) : null },
        revision.log_context ?? logContext(deployment, null),
      );
      const { lines, complete } = visibleLog(script, query.type, revision.superseded_ms !== null, now());
      return { status: 200, body: logPage(lines, complete, query) };
    },

    getOauthProvider({ path, principal }) {
      const provider = store.getProvider(principal.id, path.provider_id);
      if (!provider) throw new HttpError(404, `OAuth provider ${path.provider_id} not found.`);
      return { status: 200, body: provider };
    },

    getSandboxPool({ path, principal }) {
      const pool = store.getPool(principal.id, path.name);
      if (!pool) throw new HttpError(404, { error: 'NotFound', message: 'Resource not found.' });
      return { status: 200, body: pool };
    },
  };
}

/**
 * The revision's source configuration as the API shows it, with the commit once it is known: when
 * its build checks it out, or from the start when it deploys an earlier build's image.
 */
function revisionConfig(row: RevisionRow, at: number): SourceRevisionConfig {
  const config = row.source_revision_config;
  const known = row.source === 'git_host' && (row.image_from !== null || reached(row, 'BUILDING', at));
  return {
    repo_ref: config.repo_ref,
    graph_config_path: config.graph_config_path,
    image_uri: config.image_uri,
    repo_commit_sha: known ? buildCommit(row) : null,
  };
}

/** The commit a git revision's image is built from: a stand-in for the ref's head when its build ran. */
function buildCommit(row: Pick<RevisionRow, 'id' | 'image_from' | 'source_revision_config'>): string {
  return createHash('sha1')
    .update(`${row.image_from ?? row.id}:${row.source_revision_config.repo_ref}`)
    .digest('hex');
}

/** What a new revision's logs will say about its deployment: taken now, so later changes do not rewrite them. */
function logContext(deployment: DeploymentRow, outcomeLines: LogLine[] | null): RevisionLogContext {
  const config = deployment.source_config;
  return {
    repo_url: config.repo_url,
    secret_names: deployment.secrets.map(({ name }) => name),
    resources: config.resource_spec ?? RESOURCE_DEFAULTS[config.deployment_type],
    outcome_lines: outcomeLines,
  };
}

/**
 * The complete source configuration from a request's fields over the current one (a PATCH keeps
 * what it leaves out). `resource_spec` fields left out take the deployment type's defaults.
 */
function fullSourceConfig(
  input: NonNullable<DeploymentCreate['source_config']>,
  current: SourceConfig | null,
  issues: ValidationIssue[],
): SourceConfig {
  const base: SourceConfig = current ?? {
    integration_id: null,
    repo_url: null,
    deployment_type: 'dev',
    build_on_push: false,
    custom_url: null,
    resource_spec: null,
  };
  const merged: SourceConfig = {
    integration_id: input.integration_id !== undefined ? input.integration_id : base.integration_id,
    repo_url: input.repo_url !== undefined ? input.repo_url : base.repo_url,
    deployment_type: input.deployment_type ?? base.deployment_type,
    build_on_push: input.build_on_push ?? base.build_on_push,
    custom_url: input.custom_url !== undefined ? input.custom_url : base.custom_url,
    resource_spec: base.resource_spec,
  };
  if (input.resource_spec !== undefined) {
    merged.resource_spec = input.resource_spec === null ? null : { ...RESOURCE_DEFAULTS[merged.deployment_type], ...input.resource_spec };
  }
  if (merged.integration_id) merged.integration_id = canonicalUuid(merged.integration_id);
  const spec = merged.resource_spec;
  if (spec && spec.min_scale > spec.max_scale) {
    issues.push({
      loc: ['body', 'source_config', 'resource_spec', 'min_scale'],
      msg: `min_scale (${spec.min_scale}) should not exceed max_scale (${spec.max_scale})`,
      type: 'value_error',
    });
  }
  return merged;
}

function secretIssues(secrets: { name: string }[] | undefined): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  (secrets ?? []).forEach((secret, i) => {
    if (seen.has(secret.name))
      issues.push({ loc: ['body', 'secrets', i, 'name'], msg: `Secret ${secret.name} is listed twice`, type: 'value_error' });
    seen.add(secret.name);
  });
  return issues;
}

/** What the emulator keeps of secrets: their names. A value is never stored (the Secret schema says so). */
function secretNames(secrets: { name: string }[]): { name: string }[] {
  return secrets.map(({ name }) => ({ name }));
}

function throwError(error: Error): never {
  throw error;
}
