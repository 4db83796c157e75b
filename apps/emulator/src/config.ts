// The emulator's configuration file (YAML or JSON): tenants with their API keys, OAuth providers
// and sandbox pools; which revisions fail and how; whether the agent server requires a key; which
// browser origins may call (CORS); the scripted graphs its runs execute
// (agent-server/graphs/ holds their format, graph-config.ts, and their semantics).
// Provider and pool records are checked against the control plane spec's own schemas once their
// generated fields are filled in (see control-plane/tenants.ts), so their rules are not repeated.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import { GRAPH_SCHEMA } from './agent-server/graphs/graph-config.js';
import { graphConfigProblems } from './agent-server/graphs/graph-problems.js';
import { LogLevelSchema, RevisionStatusSchema } from './generated/control-plane/contract.js';
import { withSharedSubschemas } from './shared/shared-subschemas.js';

const TERMINAL = RevisionStatusSchema['x-terminal'];
type Terminal = keyof typeof TERMINAL;
/** What a revision can be configured to end in: any terminal status but SKIPPED, which only a newer revision causes. */
export type RevisionOutcome = Exclude<Terminal, 'SKIPPED'>;
export const REVISION_OUTCOMES = (Object.keys(TERMINAL) as Terminal[]).filter((status): status is RevisionOutcome => status !== 'SKIPPED');

/** The config file's schema; the EmulatorConfig type is derived from it, so the two cannot differ. */
export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    revision_outcomes: {
      type: 'array',
      description: 'First match wins; no match deploys.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['match', 'status'],
        properties: {
          match: { type: 'string', minLength: 1, description: "Glob (* and ?) against the revision's image_uri or repo_ref." },
          status: { enum: REVISION_OUTCOMES },
          log: {
            type: 'array',
            description:
              "The lines that say why, written to the log of the phase the revision ends in (in place of the emulator's own): a message (an ERROR line) or {level, message}.",
            items: {
              anyOf: [
                { type: 'string', minLength: 1, pattern: '^[^\\r\\n]*$' },
                {
                  type: 'object',
                  additionalProperties: false,
                  required: ['message'],
                  properties: { level: { enum: LogLevelSchema.enum }, message: { type: 'string', minLength: 1, pattern: '^[^\\r\\n]*$' } },
                },
              ],
            },
          },
        },
      },
    },
    tenants: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'api_keys'],
        properties: {
          id: { type: 'string', minLength: 1 },
          organization_id: { type: 'string', minLength: 1 },
          api_keys: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
          bearer_tokens: { type: 'array', items: { type: 'string', minLength: 1 } },
          oauth_providers: {
            type: 'array',
            description: "Checked against the spec's OAuthProvider schema once the generated fields are filled in.",
            items: {
              type: 'object',
              required: ['provider_id', 'name', 'client_id', 'auth_url', 'token_url'],
              properties: {
                provider_id: { type: 'string' },
                name: { type: 'string' },
                client_id: { type: 'string' },
                auth_url: { type: 'string' },
                token_url: { type: 'string' },
                uses_pkce: { type: 'boolean' },
              },
            },
          },
          sandbox_pools: {
            type: 'array',
            description: "Checked against the spec's SandboxPool schema once the generated fields are filled in.",
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'template_name', 'replicas'],
              properties: { name: { type: 'string' }, template_name: { type: 'string' }, replicas: { type: 'integer' } },
            },
          },
        },
      },
    },
    graphs: {
      type: 'object',
      description:
        'Scripted graphs by graph_id: what runs of each graph do, with no graph code and no LLM. Without graphs, one graph `agent` echoes the input.',
      additionalProperties: GRAPH_SCHEMA,
    },
    cors: {
      type: 'object',
      additionalProperties: false,
      required: ['origins'],
      description: 'Which browser origins may call both APIs (decision E20); default: any.',
      properties: {
        origins: {
          // One schema, not anyOf, so that a wrong value gets one line naming what fits.
          type: ['string', 'array'],
          pattern: '^\\*$',
          description: '* (any origin) or a list of origins',
          items: {
            type: 'string',
            pattern: '^([a-zA-Z][a-zA-Z0-9+.-]*://[^/?#\\s]+|\\*)$',
            description: 'an origin, scheme://host[:port] with no path nor trailing slash (http://localhost:3000), or *',
          },
        },
      },
    },
    crons: {
      type: 'object',
      additionalProperties: false,
      description: 'How the scheduler runs crons (decision E23).',
      properties: {
        speed: {
          type: 'number',
          minimum: 1,
          maximum: 86400,
          description: 'How many times faster than the clock schedules run: 60 makes a `* * * * *` cron run every second (default 1).',
        },
      },
    },
    agent_server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        api_keys: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description: 'When non-empty, X-Api-Key must be one of these.',
        },
      },
    },
  },
} as const;

export type EmulatorConfig = FromSchema<typeof CONFIG_SCHEMA>;

/**
 * CONFIG_SCHEMA as a JSON Schema document, as the package publishes it
 * (`@agentplane/emulator/config.schema.json`, written at build time) for editors to complete and
 * check a config with. Draft-07, which every editor's YAML language server reads; the keywords
 * CONFIG_SCHEMA uses mean the same there as in the draft the emulator validates with.
 */
export const CONFIG_SCHEMA_DOCUMENT = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'agentplane emulator config',
  description:
    'The config of agentplane-emulator (--config): tenants and their credentials, revision outcomes, CORS, the agent server key, and the scripted graphs runs execute. Some rules are checked when the emulator starts only (a key a step writes must be a state key, a node an edge names must be a node): see the emulator README.',
  ...CONFIG_SCHEMA,
} as const;
export type TenantConfig = NonNullable<EmulatorConfig['tenants']>[number];
export type CorsConfig = NonNullable<EmulatorConfig['cors']>;
export type CronsConfig = NonNullable<EmulatorConfig['crons']>;

// Ajv and the YAML parser are loaded only when a config is read: the emulator without one
// starts without them (decision E8).
const require = createRequire(import.meta.url);

export class ConfigError extends Error {}

export function readConfigFile(file: string): EmulatorConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = /\.json$/i.test(file) ? JSON.parse(text) : (require('yaml') as typeof import('yaml')).parse(text);
  } catch (error) {
    throw new ConfigError(`config ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  return checkConfig(parsed ?? {}, file);
}

/**
 * The config's schema as published (`@agentplane/emulator/config.schema.json`, written by the
 * build) and as the emulator validates with it: CONFIG_SCHEMA_DOCUMENT with each repeated part
 * written once (shared-subschemas.ts).
 */
export function publishedConfigSchema(): Record<string, unknown> {
  published ??= withSharedSubschemas(CONFIG_SCHEMA_DOCUMENT);
  return published;
}
let published: Record<string, unknown> | undefined;

/** The config's validator, compiled once per process, on first use. */
let validateConfig: import('ajv').ValidateFunction | undefined;

export function checkConfig(value: unknown, origin = 'config'): EmulatorConfig {
  if (!validateConfig) {
    const Ajv = (require('ajv') as typeof import('ajv')).default;
    validateConfig = new Ajv({ allErrors: true, strict: false, verbose: true }).compile(publishedConfigSchema());
  }
  const validate = validateConfig;
  if (!validate(value))
    throw new ConfigError(
      `${origin} is invalid:\n${describeConfigErrors(validate.errors ?? [])
        .map((line) => `  ${line}`)
        .join('\n')}`,
    );
  const config = value as EmulatorConfig;
  const owners = new Map<string, string>();
  for (const tenant of config.tenants ?? []) {
    for (const key of [...tenant.api_keys, ...(tenant.bearer_tokens ?? [])]) {
      const owner = owners.get(key);
      if (owner && owner !== tenant.id)
        throw new ConfigError(
          `${origin} is invalid: a credential of tenant ${tenant.id} also belongs to tenant ${owner}; each key belongs to one tenant`,
        );
      owners.set(key, tenant.id);
    }
  }
  const ids = (config.tenants ?? []).map((t) => t.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new ConfigError(`${origin} is invalid: tenant ${duplicate} is listed twice`);
  const graphProblems = graphConfigProblems(config.graphs ?? {});
  if (graphProblems.length > 0) throw new ConfigError(`${origin} is invalid:\n${graphProblems.map((line) => `  ${line}`).join('\n')}`);
  return config;
}

/**
 * One line per problem, each naming the key path (`tenants[0].api_keys`), the value found and what
 * is allowed there, so a config can be fixed from the message alone.
 */
export function describeConfigErrors(errors: ErrorObject[]): string[] {
  const lines = new Set<string>();
  for (const error of errors) {
    const at = configPath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'additionalProperties': {
        const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
        lines.add(`${join(at, String(params.additionalProperty))}: unknown key; allowed here: ${allowed.join(', ')}`);
        break;
      }
      case 'required':
        lines.add(`${join(at, String(params.missingProperty))}: missing; it is required`);
        break;
      case 'enum':
        lines.add(`${at || '(config)'}: ${show(error.data)} is not allowed; use one of ${(params.allowedValues as unknown[]).join(', ')}`);
        break;
      case 'pattern': {
        // A pattern is no explanation: a schema with one says in its description what it allows.
        const allows = (error.parentSchema as { description?: string } | undefined)?.description;
        lines.add(`${at || '(config)'}: ${show(error.data)} ${allows ? `does not fit; expected ${allows}` : error.message}`);
        break;
      }
      case 'type':
        lines.add(`${at || '(config)'}: ${show(error.data)} is not ${typeName(String(params.type))}`);
        break;
      default:
        lines.add(`${at || '(config)'}: ${show(error.data)} ${error.message ?? 'is invalid'}`);
    }
  }
  return [...lines];
}

/** A JSON pointer as a config key path: `/tenants/0/api_keys` → `tenants[0].api_keys`. */
export function configPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : join(path, part)), '');
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeName(types: string): string {
  const names: Record<string, string> = {
    integer: 'an integer',
    array: 'a list',
    object: 'a mapping',
    string: 'a string',
    boolean: 'a boolean',
    number: 'a number',
    null: 'null',
  };
  return types
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}
