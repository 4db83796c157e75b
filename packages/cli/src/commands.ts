// The command table: each command's words, arguments, flags, help text and implementation.

import { checkCatalog, RUN_TAG } from '@agentplane/conformance';
import { conformanceCommand } from './commands/conformance.js';
import { deployCommand } from './commands/deploy.js';
import { deleteCommand, poolGetCommand, providerGetCommand, revisionsCommand, statusCommand } from './commands/inspect.js';
import { waitCommand } from './commands/wait.js';
import type { Context } from './context.js';
import type { ExitCode } from './errors.js';
import type { FlagName } from './options.js';
import { COMMON_FLAGS, WAIT_FLAGS } from './options.js';

export interface CommandSpec {
  /** The command words: ['deploy'], ['pool', 'get']. */
  words: string[];
  /** Positional arguments: `<x>` required, `[x]` optional. */
  args: string[];
  flags: readonly FlagName[];
  summary: string;
  /** Paragraphs shown by --help. */
  description: string[];
  examples: string[];
  run(ctx: Context): Promise<ExitCode>;
}

export const COMMANDS: CommandSpec[] = [
  {
    words: ['deploy'],
    args: ['<name>'],
    flags: ['image', 'repo-url', 'ref', 'config-path', 'secret', 'no-wait', ...WAIT_FLAGS, ...COMMON_FLAGS],
    summary: 'Create or update a deployment by name, then wait until its new revision is DEPLOYED.',
    description: [
      'Finds the deployment whose name is exactly <name> (case-sensitive). If there is none, creates it: from a container image with --image (source external_container), or from git with --repo-url, --ref and --config-path (source git_host). If it exists, updates it: a new --image, or a new --ref and/or --config-path, which makes a new revision. Running the same deploy twice never creates a second deployment.',
      'Then waits for that revision until it is DEPLOYED (exit 0), fails (exit 1, with its status and a hint), or --timeout passes (exit 2). Ctrl-C stops waiting (exit 130) and leaves the deployment as it is.',
      'A tag ref (refs/tags/...) is deployed with build_on_push false, as the control plane requires. A deployment keeps its source: a container deployment takes --image only, a git one --ref/--config-path only.',
    ],
    examples: [
      'agentplane deploy billing-agent --image registry.example.com/agents/billing:1.9.0 --secret OPENAI_API_KEY',
      'agentplane deploy support-agent --repo-url https://github.com/acme/support-agent --ref main --config-path langgraph.json',
      'agentplane deploy support-agent --ref refs/tags/v1.4.0 --json > deploy.json',
    ],
    run: deployCommand,
  },
  {
    words: ['wait'],
    args: ['<deployment>', '[revision]'],
    flags: [...WAIT_FLAGS, ...COMMON_FLAGS],
    summary: 'Wait for a revision (default: the latest) until it is DEPLOYED, fails or times out.',
    description: [
      "<deployment> is a deployment ID or exact name; [revision] a revision ID, by default the deployment's latest revision. Exit codes as for deploy: 0 DEPLOYED, 1 failed, 2 timed out, 130 interrupted.",
      'With a tenant ID or bearer token instead of an API key, give both IDs: those credentials can only read a revision.',
    ],
    examples: [
      'agentplane wait billing-agent',
      'agentplane wait 9d4c2b1a-7e6f-4a5b-8c3d-2e1f0a9b8c71 7a3d9e2b-1c4f-4a8e-b6d5-2e9f0a1b3c75 --timeout 45m',
    ],
    run: waitCommand,
  },
  {
    words: ['status'],
    args: ['<deployment>'],
    flags: COMMON_FLAGS,
    summary: "Show a deployment, its latest revision's status and the revision serving traffic.",
    description: [
      "<deployment> is a deployment ID or exact name. Exit 0 whatever the revision's status (use `wait` to gate on it); 4 when the deployment does not exist.",
    ],
    examples: ['agentplane status billing-agent', 'agentplane status billing-agent --json | jq -r .revision.status'],
    run: statusCommand,
  },
  {
    words: ['revisions'],
    args: ['<deployment>'],
    flags: ['status', 'limit', ...COMMON_FLAGS],
    summary: "List a deployment's revisions, newest first.",
    description: ['<deployment> is a deployment ID or exact name. The active (serving) and latest revisions are marked.'],
    examples: ['agentplane revisions billing-agent', 'agentplane revisions billing-agent --status BUILD_FAILED --limit 5'],
    run: revisionsCommand,
  },
  {
    words: ['delete'],
    args: ['<deployment>'],
    flags: COMMON_FLAGS,
    summary: 'Delete a deployment and all its revisions, for good.',
    description: [
      '<deployment> is a deployment ID or exact name. There is no confirmation prompt: the command is meant for scripts and CI (such as cleaning up preview deployments). Exit 4 when it does not exist (any more).',
    ],
    examples: ['agentplane delete preview-pr-42'],
    run: deleteCommand,
  },
  {
    words: ['pool', 'get'],
    args: ['<name>'],
    flags: COMMON_FLAGS,
    summary: 'Show a sandbox pool of your tenant.',
    description: ['<name> is the pool name (a DNS-1035 label such as python-pool).'],
    examples: ['agentplane pool get python-pool'],
    run: poolGetCommand,
  },
  {
    words: ['provider', 'get'],
    args: ['<id>'],
    flags: COMMON_FLAGS,
    summary: 'Show an OAuth provider.',
    description: ["<id> is the provider's provider_id slug (such as github), not its internal id. No client secret is ever shown."],
    examples: ['agentplane provider get github'],
    run: providerGetCommand,
  },
  {
    words: ['conformance'],
    args: [],
    flags: ['agent-server', 'control-plane', 'api-key', 'graph-id', 'allow-writes', 'only', 'skip', 'junit', 'json', 'help'],
    summary: 'Check a live agent server and/or control plane against the contract: every answer, and the behaviour.',
    description: [
      "Validates every answer against the bundled spec of this CLI's version (status documented, body valid, error shapes, declared headers) and runs stateful scenarios a schema cannot express (history order and paging, state at a checkpoint, copies, search filters and counts, update state, deletes, 404 and 422 shapes). Progress goes to stderr, the summary table (area, check, pass / fail / not served) to stdout.",
      'Safe against real servers: it creates only its own threads (tagged in metadata) and deletes them at the end, even when interrupted; it never reads, changes or deletes anything else. The control plane is only read unless --allow-writes. 429 answers are waited out. --api-key is sent to both APIs.',
      `Checks (names for --only and --skip): the areas ${[...new Set(checkCatalog().map((c) => c.area))].join(', ')} (schema: one check per operation, named schema:<operationId>); a check id such as search:sort; an operation id such as getThread; a spec tag such as Threads. The docs site's conformance page lists every check with the rule it enforces. A failure on a rule where the spec declares that the LangGraph JS server differs on purpose names that difference's id; on any other server it is a failure like the rest.`,
      `Safety details: threads carry metadata.${RUN_TAG} = the run's id (printed with the summary); every search and count the run makes filters on it. Ctrl-C (SIGINT) or SIGTERM stops after the request in flight, deletes what the run created, prints the summary and exits 130 (143 for SIGTERM); a second one exits at once, without the cleanup. A 429 is waited out as Retry-After says, for at most 2 minutes per request, and shown in the progress.`,
      'Exit 0 when every served operation conforms (an operation the server does not serve is reported, not failed), 1 when a check fails or the cleanup could not delete something, 3 for a usage error, 130 when interrupted (after the cleanup).',
    ],
    examples: [
      'agentplane conformance --agent-server https://my-deployment.example.com --api-key "$KEY"',
      'agentplane conformance --agent-server http://127.0.0.1:8123 --junit conformance.xml',
      'agentplane conformance --control-plane https://api.example.com --api-key "$KEY" --allow-writes --json > conformance.json',
      'agentplane conformance --agent-server http://127.0.0.1:2024 --graph-id agent --skip pruneThreads',
    ],
    run: conformanceCommand,
  },
];

export const commandName = (spec: CommandSpec) => spec.words.join(' ');
