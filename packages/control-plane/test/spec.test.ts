import { createValidator, loadBundle, resolveRef } from '@agentplane/openapi-toolkit';
import { describeSpecContract } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';

describeSpecContract('control-plane', [
  { operationId: 'listDeployments', method: 'get', path: '/v2/deployments', statuses: ['200', '400', '401', '422', '431'] },
  { operationId: 'createDeployment', method: 'post', path: '/v2/deployments', statuses: ['201', '400', '401', '413', '415', '422', '431'] },
  {
    operationId: 'getDeployment',
    method: 'get',
    path: '/v2/deployments/{deployment_id}',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'updateDeployment',
    method: 'patch',
    path: '/v2/deployments/{deployment_id}',
    statuses: ['200', '400', '401', '404', '413', '415', '422', '431'],
  },
  {
    operationId: 'deleteDeployment',
    method: 'delete',
    path: '/v2/deployments/{deployment_id}',
    statuses: ['204', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'listRevisions',
    method: 'get',
    path: '/v2/deployments/{deployment_id}/revisions',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'createRevision',
    method: 'post',
    path: '/v2/deployments/{deployment_id}/revisions',
    statuses: ['201', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'getRevision',
    method: 'get',
    path: '/v2/deployments/{deployment_id}/revisions/{revision_id}',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'redeployRevision',
    method: 'post',
    path: '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'listRevisionLogs',
    method: 'get',
    path: '/v2/deployments/{deployment_id}/revisions/{revision_id}/logs',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'getOauthProvider',
    method: 'get',
    path: '/v2/auth/providers/{provider_id}',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
  {
    operationId: 'getSandboxPool',
    method: 'get',
    path: '/v2/sandboxes/pools/{name}',
    statuses: ['200', '400', '401', '404', '422', '431'],
  },
]);

const spec = loadBundle('control-plane');
const validate = createValidator(spec);
const schema = (name: string) => `#/components/schemas/${name}`;
const gitHost = {
  name: 'support-agent',
  source: 'git_host',
  source_config: { repo_url: 'https://github.com/acme/support-agent' },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
};
const container = { name: 'billing', source: 'external_container', source_revision_config: { image_uri: 'registry/acme/billing:1' } };

describe('control-plane contract decisions', () => {
  it('is version 0.1.0 with every path under /v2', () => {
    expect(spec.info.version).toBe('0.1.0');
    for (const route of Object.keys(spec.paths)) expect(route).toMatch(/^\/v2\//);
  });

  it('declares the three security schemes; every operation requires X-Api-Key, getRevision any one of three', () => {
    expect(spec.components.securitySchemes).toMatchObject({
      ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      TenantIdAuth: { type: 'apiKey', in: 'header', name: 'X-Tenant-Id' },
      BearerAuth: { type: 'http', scheme: 'bearer' },
    });
    for (const [route, item] of Object.entries<any>(spec.paths)) {
      for (const operation of Object.values<any>(item).filter((o) => o?.operationId)) {
        const expected =
          operation.operationId === 'getRevision' ? [{ ApiKeyAuth: [] }, { TenantIdAuth: [] }, { BearerAuth: [] }] : [{ ApiKeyAuth: [] }];
        expect(operation.security, `${route} ${operation.operationId}`).toEqual(expected);
      }
    }
  });

  it('states the default resources of each deployment type twice, the same: in x-resource-defaults and in a table', () => {
    const type = spec.components.schemas.DeploymentType;
    const rows = Object.fromEntries(
      [...type.description.matchAll(/^\| `(\w+)` \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$/gm)].map(([, name, ...values]) => [
        name,
        Object.fromEntries(['min_scale', 'max_scale', 'cpu', 'memory_mb'].map((field, i) => [field, Number(values[i])])),
      ]),
    );
    expect(Object.keys(type['x-resource-defaults']).sort()).toEqual([...type.enum].sort());
    expect(rows).toEqual(type['x-resource-defaults']);
    for (const defaults of Object.values(type['x-resource-defaults'])) expect(validate(schema('ResourceSpec'), defaults).errors).toBe('');
  });

  it('lists the thirteen revision statuses', () => {
    expect(spec.components.schemas.RevisionStatus.enum).toEqual([
      'CREATING',
      'QUEUED',
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'CREATE_FAILED',
      'BUILD_FAILED',
      'DEPLOY_FAILED',
      'DEPLOYED',
      'SKIPPED',
      'INTERRUPTED',
      'UNKNOWN',
    ]);
  });

  it('requires every revision field and marks the server-set ones read-only', () => {
    const revision = spec.components.schemas.Revision;
    expect(revision.required.sort()).toEqual(['created_at', 'id', 'source', 'source_revision_config', 'status', 'updated_at']);
    for (const field of ['id', 'created_at', 'updated_at', 'status']) expect(revision.properties[field].readOnly, field).toBe(true);
    expect(spec.components.schemas.SourceRevisionConfig.properties.repo_commit_sha.readOnly).toBe(true);
  });

  it('accepts valid creates of both sources', () => {
    expect(validate(schema('DeploymentCreate'), gitHost).errors).toBe('');
    expect(validate(schema('DeploymentCreate'), container).errors).toBe('');
  });

  it.each([
    ['git_host without repo_url', { ...gitHost, source_config: {} }],
    ['git_host without repo_ref', { ...gitHost, source_revision_config: { graph_config_path: 'langgraph.json' } }],
    ['git_host without graph_config_path', { ...gitHost, source_revision_config: { repo_ref: 'main' } }],
    ['git_host with an image_uri', { ...gitHost, source_revision_config: { ...gitHost.source_revision_config, image_uri: 'x:1' } }],
    ['external_container without image_uri', { ...container, source_revision_config: {} }],
    ['external_container with a repo_ref', { ...container, source_revision_config: { image_uri: 'x:1', repo_ref: 'main' } }],
    [
      'a tag with build_on_push',
      {
        ...gitHost,
        source_config: { repo_url: 'u', build_on_push: true },
        source_revision_config: { repo_ref: 'refs/tags/v1', graph_config_path: 'g' },
      },
    ],
    ['a read-only repo_commit_sha', { ...container, source_revision_config: { image_uri: 'x:1', repo_commit_sha: 'abc' } }],
    ['an unknown field', { ...container, replicas: 3 }],
    ['an empty name', { ...container, name: '' }],
    ['a 64-character name', { ...container, name: 'a'.repeat(64) }],
    ['an unknown source', { ...container, source: 'ftp' }],
    ['a secret without value', { ...container, secrets: [{ name: 'TOKEN' }] }],
  ])('refuses a create with %s', (_, body) => {
    expect(validate(schema('DeploymentCreate'), body).valid).toBe(false);
  });

  it('accepts a tag with build_on_push false, and refuses changing the source or a tag with build_on_push on update', () => {
    expect(
      validate(schema('DeploymentCreate'), {
        ...gitHost,
        source_config: { repo_url: 'u', build_on_push: false },
        source_revision_config: { repo_ref: 'refs/tags/v1', graph_config_path: 'g' },
      }).errors,
    ).toBe('');
    expect(validate(schema('DeploymentUpdate'), { source_revision_config: { image_uri: 'x:2' } }).errors).toBe('');
    expect(validate(schema('DeploymentUpdate'), { source: 'git_host' }).valid).toBe(false);
    expect(
      validate(schema('DeploymentUpdate'), { source_config: { build_on_push: true }, source_revision_config: { repo_ref: 'refs/tags/v2' } })
        .valid,
    ).toBe(false);
  });

  it('never returns secret values and keeps response schemas open to new fields', () => {
    expect(Object.keys(spec.components.schemas.SecretName.properties)).toEqual(['name']);
    expect(spec.components.schemas.Secret.properties.value.writeOnly).toBe(true);
    for (const name of [
      'Deployment',
      'DeploymentList',
      'Revision',
      'RevisionList',
      'OAuthProvider',
      'SandboxPool',
      'SourceRevisionConfig',
      'SourceConfig',
    ]) {
      expect(spec.components.schemas[name].additionalProperties, name).toBeUndefined();
    }
    for (const name of ['DeploymentCreate', 'DeploymentUpdate', 'SourceConfigInput', 'SourceRevisionConfigInput', 'Secret']) {
      expect(spec.components.schemas[name].additionalProperties, name).toBe(false);
    }
  });

  it('shapes the 404s as the interface fixes them', () => {
    expect(validate(schema('SandboxPoolNotFoundError'), { detail: { error: 'NotFound', message: 'Resource not found.' } }).errors).toBe('');
    expect(validate(schema('SandboxPoolNotFoundError'), { detail: 'Resource not found.' }).valid).toBe(false);
    expect(validate(schema('ErrorDetail'), { detail: 'Deployment ID 0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50 not found.' }).errors).toBe('');
  });

  it('pages both listings with limit 1–100 (default 20) and offset ≥ 0 (default 0), answering {resources, offset}', () => {
    const params = spec.components.parameters;
    expect(params.Limit).toMatchObject({
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    expect(params.Offset).toMatchObject({
      name: 'offset',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 0, default: 0 },
    });
    expect(params.NameContains).toMatchObject({ name: 'name_contains', in: 'query', required: false });
    expect(params.RevisionStatusFilter).toMatchObject({
      name: 'status',
      in: 'query',
      required: false,
      schema: { $ref: '#/components/schemas/RevisionStatus' },
    });
    for (const [route, names] of [
      ['/v2/deployments', ['name_contains', 'status', 'deployment_ids', 'limit', 'offset']],
      ['/v2/deployments/{deployment_id}/revisions', ['status', 'limit', 'offset']],
    ] as const) {
      const query = spec.paths[route].get.parameters.map((p: any) => resolveRef(spec, p)).filter((p: any) => p.in === 'query');
      expect(
        query.map((p: any) => p.name),
        route,
      ).toEqual(names);
    }
    for (const name of ['DeploymentList', 'RevisionList']) {
      expect(spec.components.schemas[name].required, name).toEqual(['resources', 'offset']);
      expect(spec.components.schemas[name].additionalProperties, name).toBeUndefined();
    }
    expect(validate(schema('DeploymentList'), { resources: [], offset: -1 }).valid).toBe(false);
    expect(validate(schema('RevisionList'), { resources: [{ id: 'x' }], offset: 0 }).valid).toBe(false);
  });

  it('filters deployments by the status of their latest revision and by comma-separated IDs (at most 100)', () => {
    const params = spec.components.parameters;
    expect(params.DeploymentStatusFilter).toMatchObject({
      name: 'status',
      in: 'query',
      schema: { $ref: '#/components/schemas/RevisionStatus' },
    });
    const ids = params.DeploymentIds.schema;
    const id = '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50';
    const matches = (text: string) => text.length <= ids.maxLength && new RegExp(ids.pattern, 'u').test(text);
    expect(matches(id)).toBe(true);
    expect(matches(`${id},${id.toUpperCase()}`)).toBe(true);
    expect(matches(Array(100).fill(id).join(','))).toBe(true);
    for (const bad of ['', `${id},`, `${id}, ${id}`, 'not-a-uuid', Array(101).fill(id).join(',')]) expect(matches(bad), bad).toBe(false);
  });

  it('pages a revision log by an opaque cursor: type required, limit 1–1000 (default 50), order asc by default, {logs, next_offset}', () => {
    const logs = spec.paths['/v2/deployments/{deployment_id}/revisions/{revision_id}/logs'].get;
    const query = Object.fromEntries(
      logs.parameters
        .map((p: any) => resolveRef(spec, p))
        .filter((p: any) => p.in === 'query')
        .map((p: any) => [p.name, p]),
    );
    expect(Object.keys(query)).toEqual(['type', 'order', 'limit', 'offset', 'level', 'query', 'start_time', 'end_time']);
    expect(query.type.required).toBe(true);
    expect(resolveRef(spec, query.type.schema).enum).toEqual(['build', 'deploy']);
    expect(query.order.schema).toEqual({ type: 'string', enum: ['asc', 'desc'], default: 'asc' });
    expect(query.limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 50 });
    expect(query.offset.schema.type).toBe('string');
    expect(resolveRef(spec, query.level.schema).enum).toEqual(['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL']);
    for (const name of ['start_time', 'end_time']) expect(query[name].schema).toEqual({ type: 'string', format: 'date-time' });
    const page = spec.components.schemas.RevisionLogPage;
    expect(page.required).toEqual(['logs', 'next_offset']);
    expect(validate(schema('RevisionLogPage'), { logs: [], next_offset: null }).errors).toBe('');
    expect(
      validate(schema('RevisionLogPage'), { logs: [{ timestamp: '2026-11-20T08:00:00Z', level: 'INFO' }], next_offset: null }).valid,
    ).toBe(false);
  });

  it('redeploys a revision and creates a revision of the current configuration without a body', () => {
    const redeploy = spec.paths['/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy'].post;
    const create = spec.paths['/v2/deployments/{deployment_id}/revisions'].post;
    for (const operation of [redeploy, create]) {
      expect(operation.requestBody, operation.operationId).toBeUndefined();
      // Each call makes a revision: the clients never send it twice.
      expect(operation['x-retry-safe'], operation.operationId).toBeUndefined();
    }
    expect(redeploy.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Deployment' });
    expect(create.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Revision' });
  });

  it('deletes with 204 and no body, and answers a missing deployment with the getDeployment 404', () => {
    const remove = spec.paths['/v2/deployments/{deployment_id}'].delete;
    expect(remove.responses['204'].content).toBeUndefined();
    expect(remove.responses['404']).toEqual(spec.paths['/v2/deployments/{deployment_id}'].get.responses['404']);
    expect(spec.paths['/v2/deployments/{deployment_id}/revisions'].get.responses['404']).toEqual(remove.responses['404']);
  });

  it('requires every OAuth provider field, nullable where decision C8 says', () => {
    const provider = spec.components.schemas.OAuthProvider;
    expect(provider.required).toHaveLength(15);
    for (const field of ['code_challenge_method', 'provider_type', 'mcp_server_url'])
      expect(provider.properties[field].type).toContain('null');
    expect(provider.properties.token_endpoint_auth_method.enum).toEqual(['none', 'client_secret_basic', 'client_secret_post']);
  });

  it('restricts pool names to DNS-1035 labels and replicas to ≥ 0', () => {
    const pool = (name: string) => validate(schema('SandboxPool'), { ...spec.components.examples.SandboxPoolPython.value, name }).valid;
    expect(pool('python-pool')).toBe(true);
    for (const bad of ['Python', '1pool', 'pool-', 'a_b', 'a'.repeat(64)]) expect(pool(bad), bad).toBe(false);
    expect(validate(schema('SandboxPool'), { ...spec.components.examples.SandboxPoolPython.value, replicas: -1 }).valid).toBe(false);
  });
});
