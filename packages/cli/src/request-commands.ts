// Which `agentplane` command performs a control plane operation, and the command line that makes
// it send a given request: for tools that show the CLI next to the HTTP API (the docs' code
// samples). This knowledge lives here, next to the commands, so that a change to a command's
// arguments or to what it sends changes what those tools show.
//
// A command sends what its flags can say and nothing else; the rest of the request is reported
// as `unsupported` instead of being dropped silently. Secrets are passed as `--secret NAME`, the
// value read from the environment variable NAME, so that no secret value is written into a
// command line (or a shell history, or a CI log).
import type { operations } from '@agentplane/control-plane';
import { FLAGS } from './options.js';

/** An operation's request: its path and query parameters by name, and its JSON body. */
export interface ApiRequest {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** What the request says that the command line cannot: facts the command looks up by itself. */
export interface RequestContext {
  /** The deployment's name: `deploy` finds the deployment by name, which an update request does not carry. */
  deploymentName?: string;
}

export interface RequestCommand {
  /** The arguments after `agentplane`. */
  argv: string[];
  /**
   * Where the request has a value the command cannot send, in the notation of a 422's `loc`
   * (`body.source_config.deployment_type`, `query.offset`): the command leaves it out, so the
   * control plane's default applies (on an update, the stored value stays).
   */
  unsupported: string[];
  /** The environment variables the command reads: the control plane's URL and API key, and each `--secret NAME`'s value. */
  env: string[];
}

type Command = Omit<RequestCommand, 'env'> & { secrets?: string[] };
type Mapper = (request: ApiRequest, context: RequestContext) => Command | undefined;

const CONNECTION_ENV = [FLAGS['base-url'].env, FLAGS['api-key'].env];

const MAPPERS = {
  createDeployment: (request) => deploy(request, 'create', text(record(request.body).name, 'body.name')),
  updateDeployment: (request, context) => (context.deploymentName ? deploy(request, 'update', context.deploymentName) : undefined),
  getDeployment: (request) => ({ argv: ['status', pathParam(request, 'deployment_id')], unsupported: [] }),
  deleteDeployment: (request) => ({ argv: ['delete', pathParam(request, 'deployment_id')], unsupported: [] }),
  listRevisions: (request) => revisions(request),
  // `wait` reads the revision until it is terminal: one read when it already is.
  getRevision: (request) => ({ argv: ['wait', pathParam(request, 'deployment_id'), pathParam(request, 'revision_id')], unsupported: [] }),
  createRevision: (request) => ({ argv: ['redeploy', pathParam(request, 'deployment_id')], unsupported: [] }),
  redeployRevision: (request) => ({
    argv: ['rollback', pathParam(request, 'deployment_id'), '--to', pathParam(request, 'revision_id')],
    unsupported: [],
  }),
  listRevisionLogs: (request) => revisionLogs(request),
  getSandboxPool: (request) => ({ argv: ['pool', 'get', pathParam(request, 'name')], unsupported: [] }),
  getOauthProvider: (request) => ({ argv: ['provider', 'get', pathParam(request, 'provider_id')], unsupported: [] }),
} satisfies Partial<Record<keyof operations, Mapper>>;

/**
 * The command line that performs this control plane operation with this request, or undefined
 * when no command performs it (listDeployments, an agent server operation) or none can send this
 * request (an update that changes neither the image nor the ref nor the config path makes no
 * revision, which is all `deploy` does to an existing deployment; an update without the
 * deployment's name).
 */
export function commandForRequest(operationId: string, request: ApiRequest, context: RequestContext = {}): RequestCommand | undefined {
  const mapper: Mapper | undefined = Object.hasOwn(MAPPERS, operationId) ? MAPPERS[operationId as keyof typeof MAPPERS] : undefined;
  const command = mapper?.(request, context);
  if (!command) return undefined;
  return { argv: command.argv, unsupported: command.unsupported, env: [...CONNECTION_ENV, ...(command.secrets ?? [])] };
}

/** Body fields `deploy` has a flag for, with the flag; a null one (a PATCH's "no change") is left out. */
const SOURCE_FLAGS = [
  ['source_revision_config.image_uri', '--image'],
  ['source_config.repo_url', '--repo-url'],
  ['source_revision_config.repo_ref', '--ref'],
  ['source_revision_config.graph_config_path', '--config-path'],
] as const;

/** `agentplane deploy <name>`: creates the deployment when no deployment has that name, updates it otherwise. */
function deploy(request: ApiRequest, mode: 'create' | 'update', name: string): Command | undefined {
  const body = record(request.body);
  const flags = SOURCE_FLAGS.flatMap(([field, flag]) => (at(body, field) == null ? [] : [{ field, flag, value: at(body, field) }]));
  const has = (flag: string) => flags.some((f) => f.flag === flag);
  const git = has('--repo-url') || has('--ref') || has('--config-path');
  // What the command refuses (see `agentplane deploy --help`): both sources at once; a create
  // without what its source needs; an update that makes no revision.
  if (has('--image') && git) return undefined;
  if (mode === 'create') {
    const complete =
      body.source === 'external_container'
        ? has('--image')
        : body.source === 'git_host' && has('--repo-url') && has('--ref') && has('--config-path');
    if (!complete) return undefined;
  } else if (!has('--image') && !has('--ref') && !has('--config-path')) {
    return undefined;
  }
  const secrets = body.secrets === undefined ? [] : secretNames(body.secrets);
  if (secrets === undefined) return undefined;

  const argv = [
    'deploy',
    name,
    ...flags.flatMap(({ flag, value }) => [flag, text(value, flag)]),
    ...secrets.flatMap((s) => ['--secret', s]),
  ];
  const sent = new Set<string>(flags.map((f) => f.field));
  if (mode === 'create') sent.add('name').add('source');
  // An empty list (on an update: remove every secret) is not something --secret can say.
  if (secrets.length > 0) sent.add('secrets');
  // A tag is immutable: for a tag ref the command sends build_on_push false itself.
  const ref = at(body, 'source_revision_config.repo_ref');
  if (typeof ref === 'string' && ref.startsWith('refs/tags/') && at(body, 'source_config.build_on_push') === false)
    sent.add('source_config.build_on_push');
  const unsupported = leafPaths(body)
    .filter((field) => !sent.has(field))
    .map((field) => `body.${field}`);
  return { argv, unsupported, secrets };
}

/** `agentplane revisions <deployment> [--status S] [--limit n]`: always from the newest, so only offset 0. */
function revisions(request: ApiRequest): Command {
  const query = request.query ?? {};
  const argv = ['revisions', pathParam(request, 'deployment_id')];
  const unsupported: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (name === 'status' || name === 'limit') argv.push(`--${name}`, String(value));
    else if (!(name === 'offset' && Number(value) === 0)) unsupported.push(`query.${name}`);
  }
  return { argv, unsupported };
}

/** `agentplane logs <deployment> --revision <id> --type <type>`: the whole log, oldest first; the paging and filters are the command's own. */
function revisionLogs(request: ApiRequest): Command {
  const query = request.query ?? {};
  const argv = ['logs', pathParam(request, 'deployment_id'), '--revision', pathParam(request, 'revision_id')];
  if (query.type !== undefined) argv.push('--type', text(query.type, 'query.type'));
  const unsupported = Object.entries(query)
    .filter(([name, value]) => name !== 'type' && value !== undefined)
    .map(([name]) => `query.${name}`);
  return { argv, unsupported };
}

function pathParam(request: ApiRequest, name: string): string {
  return text(request.path?.[name], `path.${name}`);
}

function text(value: unknown, where: string): string {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  throw new TypeError(`${where} must be a string, got ${JSON.stringify(value)}`);
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The value at a dotted path of nested objects. */
function at(value: Record<string, unknown>, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((node, key) => record(node)[key], value);
}

/** The dotted paths of an object's values that are not objects themselves (an array is one value). */
function leafPaths(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([key, item]) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? leafPaths(item as Record<string, unknown>, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}

/** The names of `[{name, value}]` secrets, or undefined when that is not what it is. */
function secretNames(secrets: unknown): string[] | undefined {
  if (!Array.isArray(secrets)) return undefined;
  const names = secrets.map((secret) => record(secret).name);
  return names.every((name): name is string => typeof name === 'string') ? names : undefined;
}
