// Every flag of the CLI, once: its parseArgs definition, its help line, and the environment
// variable that stands in for it. Commands pick the flags they take from here.

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Placeholder in help (`--image <uri>`). */
  value?: string;
  help: string;
  /** Environment variable read when the flag is absent. */
  env?: string;
  default?: string;
}

export const FLAGS = {
  // Connection (every command).
  'base-url': {
    type: 'string',
    value: 'url',
    env: 'AGENTPLANE_BASE_URL',
    help: 'Root URL of the control plane, without /v2 (such as https://api.example.com).',
  },
  'api-key': {
    type: 'string',
    value: 'key',
    env: 'AGENTPLANE_API_KEY',
    help: 'API key (X-Api-Key). Every command accepts it; all but `wait <deployment-id> <revision-id>` need it.',
  },
  'tenant-id': {
    type: 'string',
    value: 'id',
    env: 'AGENTPLANE_TENANT_ID',
    help: 'Tenant ID (X-Tenant-Id). Sent along with an API key or bearer token; alone, it is a credential for `wait <deployment-id> <revision-id>` only.',
  },
  'bearer-token': {
    type: 'string',
    value: 'token',
    env: 'AGENTPLANE_BEARER_TOKEN',
    help: 'Bearer token (Authorization: Bearer), a credential for `wait <deployment-id> <revision-id>` only.',
  },
  json: { type: 'boolean', help: 'Print one JSON document on stdout and nothing else there (progress and errors still go to stderr).' },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
  // Waiting.
  timeout: {
    type: 'string',
    value: 'duration',
    default: '30m',
    help: 'Give up waiting after this long (exit 2): 90s, 20m, 1h30m, or seconds.',
  },
  interval: { type: 'string', value: 'duration', default: '5s', help: 'Pause between two polls of the revision.' },
  // Deploy.
  image: { type: 'string', value: 'uri', help: 'Container image to deploy (source external_container).' },
  'repo-url': { type: 'string', value: 'url', help: 'Git repository URL (source git_host; needed to create).' },
  ref: { type: 'string', value: 'ref', help: 'Git ref to build: a branch name (main) or a tag (refs/tags/v1.4.0) (source git_host).' },
  'config-path': {
    type: 'string',
    value: 'path',
    help: 'Path of the graph configuration file in the repository, such as langgraph.json (source git_host; needed to create).',
  },
  secret: {
    type: 'string',
    multiple: true,
    value: 'NAME=VALUE|NAME',
    help: 'A secret (environment variable) for the deployment; repeatable. NAME alone reads the value from the environment variable NAME. On an existing deployment, the secrets given replace all of its secrets.',
  },
  'no-wait': { type: 'boolean', help: 'Return once the revision is created, without waiting for it (exit 0).' },
  // Conformance.
  'agent-server': {
    type: 'string',
    value: 'url',
    env: 'AGENTPLANE_AGENT_SERVER_URL',
    help: 'Agent server (deployment URL) to check against the agent server API contract.',
  },
  'control-plane': { type: 'string', value: 'url', help: 'Control plane (root URL, without /v2) to check against its contract.' },
  'graph-id': {
    type: 'string',
    value: 'id',
    help: 'The graph the run uses: metadata.graph_id of the threads it creates (servers that run graphs need it to write state) and the graph of the assistants it creates (default: that of the first default assistant the server lists).',
  },
  'allow-runs': {
    type: 'boolean',
    help: "Also check runs: run the agent server's graph (--graph-id, or the graph of its first default assistant) on the run's threads. A run executes the graph: its model calls cost, and its tools act.",
  },
  'scripted-graph-id': {
    type: 'string',
    value: 'id',
    help: 'A graph of the agent server that runs the conformance script (a scripted graph; see the conformance README): the run checks of tool calls, failures and interrupts run on it, and the other run checks too unless --allow-runs.',
  },
  'allow-writes': {
    type: 'boolean',
    help: 'Also check what needs writes on the control plane: create deployments of the run (five, deleted at the end), redeploy and rebuild their revisions. Deployments cost money.',
  },
  only: { type: 'string', multiple: true, value: 'name', help: 'Only the checks about this operation, tag, area or check id; repeatable.' },
  skip: {
    type: 'string',
    multiple: true,
    value: 'name',
    help: 'Not the checks calling this operation (or tag, area, check id); repeatable.',
  },
  junit: { type: 'string', value: 'file', help: 'Also write the results as JUnit XML to this file.' },
  // Listing.
  status: { type: 'string', value: 'STATUS', help: 'Only revisions with this status (DEPLOYED, BUILD_FAILED, ...).' },
  limit: { type: 'string', value: 'n', default: '20', help: 'Show at most n revisions, newest first.' },
  // Logs.
  logs: {
    type: 'boolean',
    help: "Print the revision's build and deploy log lines as they are written while waiting (secrets given with --secret masked).",
  },
  revision: { type: 'string', value: 'id', help: "The revision whose logs to show (default: the deployment's latest)." },
  type: { type: 'string', value: 'build|deploy', help: 'Only this log: build or deploy (default: both, build first).' },
  follow: {
    type: 'boolean',
    help: 'Keep printing new lines until the revision is terminal, then exit as `wait` does (0 DEPLOYED, 1 failed, 2 timed out).',
  },
  // Rollback.
  to: { type: 'string', value: 'revision', help: 'The revision (ID) to roll back to.' },
  previous: {
    type: 'boolean',
    help: 'Roll back to the newest DEPLOYED revision before the one serving (the default).',
  },
  // Preview.
  pr: { type: 'string', value: 'n', help: 'The pull request number: the preview deployment is <name>-pr-<n>.' },
  'custom-url': {
    type: 'string',
    value: 'url',
    help: "The preview's URL (its source_config.custom_url), printed for the job summary.",
  },
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;

export const CONNECTION_FLAGS = ['base-url', 'api-key', 'tenant-id', 'bearer-token'] as const satisfies readonly FlagName[];
export const COMMON_FLAGS = [...CONNECTION_FLAGS, 'json', 'help'] as const satisfies readonly FlagName[];
export const WAIT_FLAGS = ['timeout', 'interval'] as const satisfies readonly FlagName[];

/** parseArgs option definitions for these flags. */
export function parseArgsOptions(
  names: readonly FlagName[],
): Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> {
  return Object.fromEntries(
    names.map((name) => {
      const spec: FlagSpec = FLAGS[name];
      return [name, { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) }];
    }),
  );
}

/** Help lines for these flags, aligned, descriptions wrapped. */
export function flagHelp(names: readonly FlagName[]): string {
  const rows = names.map((name) => {
    const spec: FlagSpec = FLAGS[name];
    const label = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` <${spec.value}>` : ''}`;
    const extra = [spec.env ? `env ${spec.env}` : '', spec.default ? `default ${spec.default}` : ''].filter(Boolean).join('; ');
    return [label, `${spec.help}${extra ? ` (${extra})` : ''}`] as const;
  });
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, text]) => indented(`  ${label.padEnd(width)}  `, text)).join('\n');
}

/** `prefix` then `text` wrapped at `width` columns, continuation lines aligned under the text. */
export function indented(prefix: string, text: string, width = 100): string {
  const room = Math.max(30, width - prefix.length);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return prefix + lines.join(`\n${' '.repeat(prefix.length)}`);
}
