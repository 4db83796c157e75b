// What a revision writes to its build and deploy logs, as a pure function of its plan and clock,
// like its status (decision E3): every line it will ever write, each timed inside the status it
// belongs to, so the lines visible at any moment are those timed at or before it. A line never
// changes and lines are only ever added at the end of a log, which is what makes paging a log
// stable while it is written (revision-log-pages.ts).
//
// The script follows the plan: a `git_host` build clones, checks out, installs and builds; a
// rollout pulls, sets the secrets (by name: the emulator never holds a value, decision C4),
// starts the replicas and passes its health check. A failure writes why (the lines the
// configured outcome gives, or the emulator's own) into the phase where it happens, then the
// line that reports it, timed when the revision reaches its terminal status. A revision
// superseded by a newer one stops writing and says so in the phase it was in.
import type { LogLevel, ResourceSpec, RevisionLogType, RevisionStatus, SourceRevisionConfig } from '@agentplane/control-plane';
import type { RevisionClock } from './revision-lifecycle.js';
import { statusAt } from './revision-lifecycle.js';

export interface LogLine {
  level: LogLevel;
  message: string;
}

export interface ScriptedLine extends LogLine {
  type: RevisionLogType;
  /** When it is written (epoch ms); a log's lines are in this order. */
  at_ms: number;
}

/** What a revision's lines say about its deployment, taken when the revision is created. */
export interface RevisionLogContext {
  repo_url: string | null;
  secret_names: string[];
  /** The resources it starts with: the deployment's `resource_spec`, or its type's defaults. */
  resources: ResourceSpec;
  /** The lines its configured outcome gives (`revision_outcomes[].log`); null for the emulator's own. */
  outcome_lines: LogLine[] | null;
}

export interface ScriptedRevision extends RevisionClock {
  id: string;
  source_revision_config: Omit<SourceRevisionConfig, 'repo_commit_sha'>;
  /** The revision whose build it deploys (a redeploy of a built `git_host` revision), else null. */
  image_from: string | null;
  /** The commit its image is built from (`git_host`), whether known yet or not. */
  commit: string | null;
}

/** Why a revision failed, when its configured outcome gives no lines of its own. */
function defaultReasons(revision: ScriptedRevision, outcome: RevisionStatus): LogLine[] {
  const image = revision.source_revision_config.image_uri;
  switch (outcome) {
    case 'CREATE_FAILED':
      return [
        {
          level: 'ERROR',
          message: image
            ? `The source could not be validated: image ${image} is not reachable with this deployment's registry credentials`
            : `The source could not be validated: ${revision.source_revision_config.repo_ref} is not a ref of the repository`,
        },
      ];
    case 'BUILD_FAILED':
      return image
        ? [{ level: 'ERROR', message: `Image ${image} was not found in its registry (manifest unknown)` }]
        : [
            { level: 'ERROR', message: 'ERROR: No matching distribution found for a dependency of the graph configuration' },
            { level: 'ERROR', message: 'Installing dependencies failed (exit code 1)' },
          ];
    case 'DEPLOY_FAILED':
      return [
        { level: 'ERROR', message: 'Container exited with code 1 during start-up' },
        { level: 'ERROR', message: 'Health check failed: GET /ok was not answered within 120s' },
      ];
    case 'INTERRUPTED':
      return [{ level: 'WARNING', message: 'The deployer restarted during the rollout' }];
    default:
      return [];
  }
}

/** Every line the revision writes, in the order written (by type, each log in time order). */
export function revisionLogScript(revision: ScriptedRevision, context: RevisionLogContext): ScriptedLine[] {
  const { plan, started_ms: start } = revision;
  const step = Math.max(1, revision.step_ms);
  const outcome = plan.at(-1)!;
  const lines: ScriptedLine[] = [];
  const write = (type: RevisionLogType, status: RevisionStatus, fraction: number, level: LogLevel, message: string) => {
    lines.push({ type, at_ms: start + plan.indexOf(status) * step + Math.floor(fraction * step), level, message });
  };
  // The lines that say why (or, on a deployed revision, the configured extra lines), spread over
  // the end of the status before the terminal one.
  const reasons = (type: RevisionLogType, status: RevisionStatus, from: number, to: number) => {
    const given = context.outcome_lines ?? defaultReasons(revision, outcome);
    for (const [i, line] of given.entries()) write(type, status, from + (i * (to - from)) / given.length, line.level, line.message);
  };
  const config = revision.source_revision_config;
  const short = (id: string) => id.slice(0, 8);
  const commit = revision.commit?.slice(0, 12) ?? 'unknown';

  // The build log.
  if (outcome === 'CREATE_FAILED') {
    write('build', 'CREATING', 0, 'INFO', `Creating revision ${revision.id}`);
    reasons('build', 'CREATING', 0.6, 0.95);
    write('build', 'CREATE_FAILED', 0, 'ERROR', 'Revision creation failed');
  } else if (plan.includes('BUILDING')) {
    write('build', 'AWAITING_BUILD', 0, 'INFO', 'Build queued: waiting for a builder');
    write('build', 'AWAITING_BUILD', 0.5, 'DEBUG', `Builder bld-${short(revision.id)} assigned`);
    write('build', 'BUILDING', 0, 'INFO', `Cloning ${context.repo_url ?? 'the repository'} at ${config.repo_ref}`);
    write('build', 'BUILDING', 0.15, 'INFO', `Checked out commit ${commit}`);
    write('build', 'BUILDING', 0.3, 'INFO', `Reading graph configuration ${config.graph_config_path}`);
    write('build', 'BUILDING', 0.45, 'INFO', 'Installing dependencies');
    if (outcome === 'BUILD_FAILED') {
      reasons('build', 'BUILDING', 0.6, 0.95);
      write('build', 'BUILD_FAILED', 0, 'ERROR', 'Build failed: see the errors above');
    } else {
      write('build', 'BUILDING', 0.6, 'INFO', 'Building the image');
      write('build', 'BUILDING', 0.85, 'INFO', `Built image for commit ${commit}`);
      const took = (plan.indexOf('AWAITING_DEPLOY') - plan.indexOf('AWAITING_BUILD')) * step;
      write('build', 'AWAITING_DEPLOY', 0, 'INFO', `Build finished in ${seconds(took)}`);
    }
  } else {
    // Not built: a container image, or the image an earlier build of this git ref made.
    if (revision.image_from)
      write('build', plan[0]!, 0, 'INFO', `No build: deploying the image revision ${revision.image_from} built (commit ${commit})`);
    if (outcome === 'BUILD_FAILED') {
      write('build', 'QUEUED', 0, 'INFO', `Resolving image ${config.image_uri ?? `built from commit ${commit}`}`);
      reasons('build', 'QUEUED', 0.6, 0.95);
      write('build', 'BUILD_FAILED', 0, 'ERROR', 'Image check failed: the image cannot be deployed');
    }
  }

  // The deploy log.
  if (plan.includes('DEPLOYING')) {
    write('deploy', 'AWAITING_DEPLOY', 0, 'INFO', 'Rollout queued: waiting for a deployer');
    write('deploy', 'AWAITING_DEPLOY', 0.5, 'DEBUG', `Deployer dpl-${short(revision.id)} assigned`);
    write(
      'deploy',
      'DEPLOYING',
      0,
      'INFO',
      config.image_uri ? `Pulling image ${config.image_uri}` : `Pulling the image built from commit ${commit}`,
    );
    const names = context.secret_names;
    write(
      'deploy',
      'DEPLOYING',
      0.15,
      'INFO',
      names.length > 0
        ? `Setting ${names.length} secret(s) as environment variables: ${names.join(', ')} (values hidden)`
        : 'No secrets to set',
    );
    const { min_scale, cpu, memory_mb } = context.resources;
    write('deploy', 'DEPLOYING', 0.3, 'INFO', `Starting ${Math.max(1, min_scale)} replica(s): ${cpu} CPU, ${memory_mb} MB each`);
    if (outcome === 'DEPLOYED') {
      write('deploy', 'DEPLOYING', 0.45, 'INFO', 'Server started: listening on port 8000');
      if (context.outcome_lines) reasons('deploy', 'DEPLOYING', 0.6, 0.8);
      write('deploy', 'DEPLOYING', 0.85, 'INFO', 'Health check passed: GET /ok answered 200');
      write('deploy', 'DEPLOYED', 0, 'INFO', `Revision ${revision.id} is serving traffic`);
    } else {
      reasons('deploy', 'DEPLOYING', 0.6, 0.95);
      write(
        'deploy',
        outcome,
        0,
        'ERROR',
        outcome === 'INTERRUPTED'
          ? 'Rollout interrupted before the revision served traffic'
          : 'Rollout failed: the revision never served traffic',
      );
    }
  }

  if (revision.superseded_ms === null) return lines;
  // Superseded: what it wrote until then, and why it stopped, in the phase it was in.
  const stopped = revision.superseded_ms;
  const { status } = statusAt({ ...revision, superseded_ms: null }, stopped);
  const building =
    status === 'CREATING' ||
    status === 'AWAITING_BUILD' ||
    status === 'BUILDING' ||
    (status === 'QUEUED' && (plan.includes('BUILDING') || outcome === 'BUILD_FAILED'));
  return [
    ...lines.filter((line) => line.at_ms <= stopped),
    {
      type: building ? 'build' : 'deploy',
      at_ms: stopped,
      level: 'WARNING',
      message: 'Superseded by a newer revision before it finished: stopped',
    },
  ];
}

/** The lines of one log visible at `now`, and whether that log is complete (nothing more will be written to it). */
export function visibleLog(script: ScriptedLine[], type: RevisionLogType, superseded: boolean, now: number) {
  const all = script.filter((line) => line.type === type);
  const lines = all.filter((line) => line.at_ms <= now);
  return { lines, complete: superseded || lines.length === all.length };
}

function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)}s` : `${(ms / 1000).toFixed(1)}s`;
}
