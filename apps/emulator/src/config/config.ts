// The emulator's configuration file (YAML or JSON): tenants with their API keys, OAuth providers
// and sandbox pools; which revisions fail and how; whether the agent server requires a key; which
// browser origins may call (CORS); the scripted graphs its runs execute
// (agent-server/graphs/ holds their format, graph-config.ts, and their semantics).
// Provider and pool records are checked against the control plane spec's own schemas once their
// generated fields are filled in (see control-plane/tenants.ts), so their rules are not repeated.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import { GRAPH_SCHEMA } from '../agent-server/graphs/graph-config.js';
import { graphConfigProblems } from '../agent-server/graphs/graph-problems.js';
import { LogLevelSchema, RevisionStatusSchema } from '../generated/control-plane/contract.js';
import { withSharedSubschemas } from '../shared/shared-subschemas.js';
import type { BranchValidator } from './schema-problems.js';
import { pathText, schemaProblems } from './schema-problems.js';
import type { ConfigPath, ConfigSource } from './source-positions.js';
import { configSource, positionAt } from './source-positions.js';

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

const yaml = () => require('yaml') as typeof import('yaml');

export function readConfigFile(file: string): EmulatorConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config ${file}: ${(error as Error).message}`);
  }
  const shown = shownName(file);
  const json = /\.json$/i.test(file);
  let parsed: unknown;
  try {
    parsed = json ? JSON.parse(text) : yaml().parse(text);
  } catch (error) {
    throw new ConfigError(syntaxErrorLine(shown, text, json, error as Error));
  }
  return validate(parsed ?? {}, shown, configSource(yaml(), text));
}

/**
 * The one check of a config, whoever gives it: the schema, then the rules that tie one part of it
 * to another (the tenants' credentials, graph-problems.ts for the graphs). It throws a ConfigError
 * listing every problem, one line each, naming where it is.
 */
export function checkConfig(value: unknown, origin = 'config'): EmulatorConfig {
  return validate(value, origin, undefined);
}

/** Whether a config object went through checkConfig (or readConfigFile) already. */
export function isCheckedConfig(config: object): boolean {
  return checked.has(config);
}
const checked = new WeakSet<object>();

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

/** The config's validator and the validators of its anyOf branches, compiled once per process, on first use. */
let validator: { config: ValidateFunction; branch: BranchValidator } | undefined;

function compiled(): NonNullable<typeof validator> {
  if (validator) return validator;
  const Ajv = (require('ajv') as typeof import('ajv')).default;
  const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
  const root = publishedConfigSchema();
  const branches = new Map<string, ValidateFunction>();
  validator = {
    config: ajv.compile(root),
    branch(schema) {
      const key = JSON.stringify(schema);
      let validate = branches.get(key);
      if (!validate) {
        validate = ajv.compile({ ...schema, definitions: root.definitions });
        branches.set(key, validate);
      }
      return validate;
    },
  };
  return validator;
}

function validate(value: unknown, origin: string, source: ConfigSource | undefined): EmulatorConfig {
  const { config: validateSchema, branch } = compiled();
  /** A problem as its line; its place in the file, when known, orders the lines. */
  const line = (problem: { path?: ConfigPath; pathText?: string; message: string }) => {
    const text = problem.pathText ?? pathText(problem.path ?? []);
    const at = source ? (problem.path ? source.positionOf(problem.path) : source.positionOfText(text)) : undefined;
    return { at, text: `${at ? `${origin}:${at.line}:${at.column}: ` : ''}${text || '(config)'}: ${problem.message}` };
  };
  type Line = ReturnType<typeof line>;
  const inFileOrder = (a: Line, b: Line) => (a.at?.line ?? 0) - (b.at?.line ?? 0) || (a.at?.column ?? 0) - (b.at?.column ?? 0);
  const fail = (lines: Line[]) =>
    new ConfigError(
      `${origin} is invalid:\n${[...lines]
        .sort(inFileOrder)
        .map((problem) => `  ${problem.text}`)
        .join('\n')}`,
    );
  if (!validateSchema(value)) throw fail(schemaProblems(validateSchema.errors ?? [], value, publishedConfigSchema(), branch).map(line));
  const config = value as EmulatorConfig;
  const problems: Line[] = [];
  const owners = new Map<string, number>();
  const tenants = config.tenants ?? [];
  tenants.forEach((tenant, t) => {
    const first = tenants.findIndex((other) => other.id === tenant.id);
    if (first !== t)
      problems.push(
        line({ path: ['tenants', t, 'id'], message: `tenant ${tenant.id} is listed twice (also tenants[${first}]); list each once` }),
      );
    for (const key of [...tenant.api_keys, ...(tenant.bearer_tokens ?? [])]) {
      const owner = owners.get(key);
      if (owner !== undefined && tenants[owner]!.id !== tenant.id)
        problems.push(
          line({
            path: ['tenants', t],
            message: `a credential of tenant ${tenant.id} also belongs to tenant ${tenants[owner]!.id}; each key belongs to one tenant`,
          }),
        );
      owners.set(key, t);
    }
  });
  for (const problem of graphConfigProblems(config.graphs ?? {})) {
    const split = problem.indexOf(': ');
    problems.push(line(split > 0 ? { pathText: problem.slice(0, split), message: problem.slice(split + 2) } : { message: problem }));
  }
  if (problems.length > 0) throw fail(problems);
  if (value && typeof value === 'object') checked.add(value);
  return config;
}

/** A file as the problems name it: relative to the current directory when it is below it. */
function shownName(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** A syntax error as one line with its place: the YAML parser gives it, JSON.parse an offset. */
function syntaxErrorLine(file: string, text: string, json: boolean, error: Error): string {
  const yamlPlace = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
  const offset = /at position (\d+)/.exec(error.message)?.[1];
  const at = yamlPlace
    ? { line: yamlPlace.line, column: yamlPlace.col }
    : offset !== undefined
      ? positionAt(text, Number(offset))
      : undefined;
  const reason = error.message
    .split('\n')[0]!
    .replace(/ at line \d+, column \d+:?$/, '')
    .replace(/ in JSON at position \d+.*$/, '');
  return `${at ? `${file}:${at.line}:${at.column}: ` : `${file}: `}not valid ${json ? 'JSON' : 'YAML'}: ${reason}`;
}
