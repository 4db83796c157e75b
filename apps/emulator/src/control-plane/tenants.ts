// Tenants of the control plane: who owns which credential, and the OAuth providers and sandbox
// pools the config gives each tenant. Without a config there is one tenant, `default`, whose API
// key is generated once per database file and printed at start-up.
import { createHash, randomBytes } from 'node:crypto';
import type { OAuthProvider, SandboxPool } from '@agentplane/control-plane';
import type { EmulatorConfig, TenantConfig } from '../config/config.js';
import { ConfigError } from '../config/config.js';
import type { ApiContract } from '../contract/api-contract.js';
import type { SchemeResolver } from '../http/authenticator.js';
import { isoNow } from '../shared/ids.js';
import type { Db } from '../store/database.js';
import { metaValue } from '../store/database.js';
import type { ControlPlaneStore } from './control-plane-store.js';

export interface Tenant {
  id: string;
}

export const DEFAULT_TENANT_ID = 'default';

export function resolveTenants(config: EmulatorConfig, db: Db): { tenants: TenantConfig[]; generatedKey?: string } {
  if (config.tenants && config.tenants.length > 0) return { tenants: config.tenants };
  const key = metaValue(db, 'default_api_key', () => `apk_${randomBytes(18).toString('base64url')}`);
  return { tenants: [{ id: DEFAULT_TENANT_ID, api_keys: [key] }], generatedKey: key };
}

/** Resolvers for the control plane's security schemes, by scheme name in the spec. */
export function controlPlaneSchemes(tenants: TenantConfig[]): Record<string, SchemeResolver<Tenant>> {
  const byKey = new Map(tenants.flatMap((t) => t.api_keys.map((key) => [key, { id: t.id }] as const)));
  const byToken = new Map(tenants.flatMap((t) => (t.bearer_tokens ?? t.api_keys).map((token) => [token, { id: t.id }] as const)));
  const byId = new Map(tenants.map((t) => [t.id, { id: t.id }] as const));
  return {
    ApiKeyAuth: { carrier: 'X-Api-Key header', resolve: (v) => byKey.get(v), invalidMessage: 'Invalid API key.' },
    TenantIdAuth: { carrier: 'X-Tenant-Id header', resolve: (v) => byId.get(v), invalidMessage: 'Unknown tenant ID.' },
    BearerAuth: { carrier: 'Authorization: Bearer header', resolve: (v) => byToken.get(v), invalidMessage: 'Invalid bearer token.' },
  };
}

/**
 * Stores the configured providers and pools, filling the fields the config may leave out, and
 * checks each record against the spec's OAuthProvider and SandboxPool schemas.
 */
export function seedTenantRecords(tenants: TenantConfig[], store: ControlPlaneStore, api: ApiContract): void {
  const now = isoNow();
  store.transaction(() => {
    for (const [t, tenant] of tenants.entries()) {
      (tenant.oauth_providers ?? []).forEach((configured, i) => {
        const usesPkce = (configured.uses_pkce as boolean | undefined) ?? false;
        const provider = {
          id: stableUuid(`provider:${tenant.id}:${configured.provider_id}`),
          organization_id: tenant.organization_id ?? tenant.id,
          uses_pkce: usesPkce,
          code_challenge_method: usesPkce ? 'S256' : null,
          provider_type: null,
          mcp_server_url: null,
          token_endpoint_auth_method: 'client_secret_post',
          is_dynamic_client: false,
          ...configured,
          created_at: now,
          updated_at: now,
        } as OAuthProvider;
        check(api, 'OAuthProvider', provider, `tenants[${t}].oauth_providers[${i}]`);
        store.upsertProvider(tenant.id, provider);
      });
      (tenant.sandbox_pools ?? []).forEach((configured, i) => {
        const pool: SandboxPool = {
          ...configured,
          id: stableUuid(`pool:${tenant.id}:${configured.name}`),
          created_at: now,
          updated_at: now,
        };
        check(api, 'SandboxPool', pool, `tenants[${t}].sandbox_pools[${i}]`);
        store.upsertPool(tenant.id, pool);
      });
    }
  });
}

function check(api: ApiContract, component: string, record: Record<string, unknown>, where: string): void {
  const issues = api.checkSchema(component, record, 'body', []);
  if (!issues) return;
  const lines = issues.map((issue) => {
    const field = issue.loc.slice(1);
    const value = field.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], record);
    const shown = value === undefined ? '' : ` ${JSON.stringify(value)}:`;
    return `  ${where}${field.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('')}:${shown} ${issue.msg} (as the spec's ${component} schema requires)`;
  });
  throw new ConfigError(`config is invalid:\n${lines.join('\n')}`);
}

/** A UUID derived from a name, so configured records keep their IDs across restarts. */
function stableUuid(name: string): string {
  const hex = createHash('sha1').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}
