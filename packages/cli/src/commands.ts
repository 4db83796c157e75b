// The command table: each command's words, arguments, flags, help text and implementation.

import { checkCatalog, RUN_TAG } from '@agentplane/conformance';
import { conformanceCommand } from './commands/conformance.js';
import { deployCommand } from './commands/deploy.js';
import { deleteCommand, poolGetCommand, providerGetCommand, revisionsCommand, statusCommand } from './commands/inspect.js';
import { logsCommand } from './commands/logs.js';
import { previewCommand, previewDeleteCommand, previewListCommand } from './commands/preview.js';
import { redeployCommand } from './commands/redeploy.js';
import { rollbackCommand } from './commands/rollback.js';
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
    flags: ['image', 'repo-url', 'ref', 'config-path', 'secret', 'no-wait', 'logs', ...WAIT_FLAGS, ...COMMON_FLAGS],
    summary: 'Create or update a deployment by name, then wait until its new revision is DEPLOYED.',
    description: [
      'Finds the deployment whose name is exactly <name> (case-sensitive). If there is none, creates it: from a container image with --image (source external_container), or from git with --repo-url, --ref and --config-path (source git_host). If it exists, updates it: a new --image, or a new --ref and/or --config-path, which makes a new revision. Running the same deploy twice never creates a second deployment.',
      'Then waits for that revision until it is DEPLOYED (exit 0), fails (exit 1, with its status, the end of the log that says why, and a hint), or --timeout passes (exit 2). --logs prints the build and deploy log lines as they are written. Ctrl-C stops waiting (exit 130) and leaves the deployment as it is.',
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
    flags: ['logs', ...WAIT_FLAGS, ...COMMON_FLAGS],
    summary: 'Wait for a revision (default: the latest) until it is DEPLOYED, fails or times out.',
    description: [
      "<deployment> is a deployment ID or exact name; [revision] a revision ID, by default the deployment's latest revision. Exit codes as for deploy: 0 DEPLOYED, 1 failed (with the end of the log that says why), 2 timed out, 130 interrupted. --logs prints the log lines as they are written.",
      'With a tenant ID or bearer token instead of an API key, give both IDs: those credentials can only read a revision.',
    ],
    examples: [
      'agentplane wait billing-agent',
      'agentplane wait 9d4c2b1a-7e6f-4a5b-8c3d-2e1f0a9b8c71 7a3d9e2b-1c4f-4a8e-b6d5-2e9f0a1b3c75 --timeout 45m',
    ],
    run: waitCommand,
  },
  {
    words: ['logs'],
    args: ['<deployment>'],
    flags: ['revision', 'type', 'follow', ...WAIT_FLAGS, ...COMMON_FLAGS],
    summary: "Print a revision's build and deploy logs; --follow prints new lines until it is terminal.",
    description: [
      "<deployment> is a deployment ID or exact name; --revision a revision ID (default: the deployment's latest). Both logs are printed, build first, each line with its time, level and log; --type keeps one. Lines go to stdout, with the values of the run's secrets and credentials masked.",
      'Without --follow: the lines written so far, exit 0 whatever the status. With --follow: new lines as they are written, until the revision is terminal; exit codes as for wait (0 DEPLOYED, 1 failed, 2 timed out after --timeout, 130 interrupted).',
    ],
    examples: [
      'agentplane logs billing-agent',
      'agentplane logs support-agent --type build --follow',
      'agentplane logs billing-agent --revision 7a3d9e2b-1c4f-4a8e-b6d5-2e9f0a1b3c75 --type deploy --json',
    ],
    run: logsCommand,
  },
  {
    words: ['rollback'],
    args: ['<deployment>'],
    flags: ['to', 'previous', 'no-wait', 'logs', ...WAIT_FLAGS, ...COMMON_FLAGS],
    summary: 'Redeploy an earlier revision (default: the one that served before the current one), then wait.',
    description: [
      '<deployment> is a deployment ID or exact name. Redeploys --to <revision>, or (--previous, the default) the newest DEPLOYED revision before the one serving now, as a new revision: an image is not built again. Then waits for it as deploy does (exit 0 DEPLOYED, 1 failed, 2 timed out).',
      'Exit 4, changing nothing, when there is nothing to roll back to (no revision was DEPLOYED before the serving one) or --to names no revision of the deployment.',
    ],
    examples: ['agentplane rollback billing-agent', 'agentplane rollback billing-agent --to 2f6e8d0c-4b3a-4c9e-a1f7-6d5c4b3a2e18 --json'],
    run: rollbackCommand,
  },
  {
    words: ['redeploy'],
    args: ['<deployment>'],
    flags: ['no-wait', 'logs', ...WAIT_FLAGS, ...COMMON_FLAGS],
    summary: 'Make a new revision of the current configuration (a branch head, a moving image tag), then wait.',
    description: [
      "<deployment> is a deployment ID or exact name. Nothing of the configuration changes: a git deployment's ref is built again as it is now, a container deployment's image tag pulled again. Then waits as deploy does.",
    ],
    examples: ['agentplane redeploy support-agent', 'agentplane redeploy billing-agent --logs --timeout 20m'],
    run: redeployCommand,
  },
  {
    words: ['preview', 'delete'],
    args: ['<name>'],
    flags: ['pr', ...COMMON_FLAGS],
    summary: 'Delete the preview deployment <name>-pr-<n>; done (exit 0) when it is already gone.',
    description: [
      '<name> is the deployment the preview was made from. Deletes <name>-pr-<n> and its revisions, without a prompt; when there is no such deployment (deleted already, or never made), says so and exits 0, so a pull request closed twice is no failure.',
    ],
    examples: ['agentplane preview delete billing-agent --pr 42'],
    run: previewDeleteCommand,
  },
  {
    words: ['preview', 'list'],
    args: ['<name>'],
    flags: COMMON_FLAGS,
    summary: 'List the open preview deployments of <name>, by pull request.',
    description: ["Every deployment named <name>-pr-<n>, with its latest revision's status and its URL."],
    examples: ['agentplane preview list billing-agent', 'agentplane preview list billing-agent --json'],
    run: previewListCommand,
  },
  {
    words: ['preview'],
    args: ['<name>'],
    flags: ['pr', 'image', 'ref', 'config-path', 'secret', 'custom-url', 'no-wait', 'logs', ...WAIT_FLAGS, ...COMMON_FLAGS],
    summary: 'Create or update the preview deployment <name>-pr-<n> from the configuration of <name>, then wait.',
    description: [
      '<name> is the deployment to preview (exact name or ID). The preview, <name>-pr-<n>, has its source, source config (without build on push and its custom URL) and the names of its secrets; --image, or --ref and --config-path, choose what it deploys (default: what <name> deploys). Run again, it updates the same preview with a new revision; two runs at once still make one preview.',
      'Secret values are never read from the control plane: each secret of <name> takes its value from the environment variable of the same name (or --secret NAME=VALUE), as for deploy; a missing one is a usage error (exit 3).',
      'Then waits as deploy does, and prints the preview\'s name, id and URL (--custom-url, its source_config.custom_url) for the job summary; --json has them under "preview".',
    ],
    examples: [
      'agentplane preview billing-agent --pr 42 --image registry.example.com/agents/billing-agent:pr-42 --custom-url https://billing-agent-pr-42.preview.example.com',
      'agentplane preview support-agent --pr 7 --ref feature/refunds --json > preview.json',
    ],
    run: previewCommand,
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
    flags: [
      'agent-server',
      'control-plane',
      'api-key',
      'graph-id',
      'allow-runs',
      'scripted-graph-id',
      'allow-writes',
      'only',
      'skip',
      'junit',
      'json',
      'help',
    ],
    summary: 'Check a live agent server and/or control plane against the contract: every answer, and the behaviour.',
    description: [
      "Validates every answer against the bundled spec of this CLI's version (status documented, body valid, error shapes, declared headers) and runs stateful scenarios a schema cannot express (history order and paging, state at a checkpoint, copies, search filters and counts, update state, deletes, 404 and 422 shapes). Progress goes to stderr, the summary table (area, check, pass / fail / not served) to stdout.",
      'Safe against real servers: it creates only its own threads (tagged in metadata) and deletes them at the end, even when interrupted; it never reads, changes or deletes anything else. It runs no graph unless --allow-runs (or --scripted-graph-id names a scripted graph to run), and the control plane is only read unless --allow-writes. 429 answers are waited out. --api-key is sent to both APIs.',
      `Checks (names for --only and --skip): the areas ${[...new Set(checkCatalog().map((c) => c.area))].join(', ')} (schema: one check per operation, named schema:<operationId>); a check id such as search:sort; an operation id such as getThread; a spec tag such as Threads. The docs site's conformance page lists every check with the rule it enforces. A failure on a rule where the spec declares that the LangGraph JS server differs on purpose names that difference's id; on any other server it is a failure like the rest.`,
      `Safety details: threads carry metadata.${RUN_TAG} = the run's id (printed with the summary); every search and count the run makes filters on it. Ctrl-C (SIGINT) or SIGTERM stops after the request in flight, deletes what the run created, prints the summary and exits 130 (143 for SIGTERM); a second one exits at once, without the cleanup. A 429 is waited out as Retry-After says, for at most 2 minutes per request, and shown in the progress.`,
      'Exit 0 when every served operation conforms (an operation the server does not serve is reported, not failed), 1 when a check fails or the cleanup could not delete something, 3 for a usage error, 130 when interrupted (after the cleanup).',
    ],
    examples: [
      'agentplane conformance --agent-server https://my-deployment.example.com --api-key "$KEY"',
      'agentplane conformance --agent-server http://127.0.0.1:8123 --junit conformance.xml',
      'agentplane conformance --control-plane https://api.example.com --api-key "$KEY" --allow-writes --json > conformance.json',
      'agentplane conformance --agent-server http://127.0.0.1:2024 --graph-id agent --skip pruneThreads',
      'agentplane conformance --agent-server http://127.0.0.1:8123 --scripted-graph-id agentplane-conformance',
    ],
    run: conformanceCommand,
  },
];

export const commandName = (spec: CommandSpec) => spec.words.join(' ');
