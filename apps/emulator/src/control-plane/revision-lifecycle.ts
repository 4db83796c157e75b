// The revision lifecycle simulator, as pure functions of time. A revision gets a plan when it is
// created (the statuses it will walk, ending in a terminal one chosen by the config's
// `revision_outcomes`); each status lasts `step_ms`; the last one stays. A newer revision freezes
// an unfinished older one at SKIPPED. Because status is computed, not stored, it survives restarts
// and needs no timers.
import type { RevisionStatus, DeploymentSource as Source } from '@agentplane/control-plane';
import type { RevisionOutcome } from '../config/config.js';
import { RevisionStatusSchema } from '../generated/control-plane/contract.js';

/** Whether a revision in this status never changes again (the spec's `x-terminal`). */
export function isTerminal(status: RevisionStatus): boolean {
  return Object.hasOwn(RevisionStatusSchema['x-terminal'], status);
}

const WALK: Record<Source, RevisionStatus[]> = {
  git_host: ['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING'],
  external_container: ['QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING'],
};

/**
 * The statuses a revision walks to its outcome. A failure happens where its phase is:
 * CREATE_FAILED right after CREATING; BUILD_FAILED after BUILDING (an external container has no
 * build, so right after QUEUED); DEPLOY_FAILED and INTERRUPTED after DEPLOYING. A `git_host`
 * revision that deploys an image built before (`prebuilt`, a redeploy) walks as a container does.
 */
export function planFor(source: Source, outcome: RevisionOutcome, prebuilt = false): RevisionStatus[] {
  const builds = source === 'git_host' && !prebuilt;
  const walk = WALK[builds ? 'git_host' : 'external_container'];
  const upTo = (status: RevisionStatus) => walk.slice(0, walk.indexOf(status) + 1);
  switch (outcome) {
    case 'DEPLOYED':
      return [...walk, 'DEPLOYED'];
    case 'CREATE_FAILED':
      return ['CREATING', 'CREATE_FAILED'];
    case 'BUILD_FAILED':
      return builds ? [...upTo('BUILDING'), 'BUILD_FAILED'] : ['QUEUED', 'BUILD_FAILED'];
    case 'DEPLOY_FAILED':
    case 'INTERRUPTED':
      return [...upTo('DEPLOYING'), outcome];
  }
}

export interface RevisionClock {
  plan: RevisionStatus[];
  started_ms: number;
  step_ms: number;
  superseded_ms: number | null;
}

/** Where the revision stands at `now`, and since when (for its `updated_at`). */
export function statusAt(revision: RevisionClock, now: number): { status: RevisionStatus; since_ms: number; position: number } {
  const at = revision.superseded_ms ?? now;
  const last = revision.plan.length - 1;
  const position = Math.max(0, Math.min(last, Math.floor((at - revision.started_ms) / Math.max(1, revision.step_ms))));
  if (revision.superseded_ms !== null) return { status: 'SKIPPED', since_ms: revision.superseded_ms, position };
  return { status: revision.plan[position]!, since_ms: revision.started_ms + position * revision.step_ms, position };
}

/** Whether the revision got as far as `status` (or, frozen by a newer revision, had got as far). */
export function reached(revision: RevisionClock, status: RevisionStatus, now: number): boolean {
  const index = revision.plan.indexOf(status);
  return index >= 0 && statusAt(revision, now).position >= index;
}

/** The first `revision_outcomes` rule whose glob matches the image URI or git ref; else none (DEPLOYED). */
export function outcomeRuleFor<Rule extends { pattern: RegExp }>(
  rules: Rule[],
  candidates: (string | null | undefined)[],
): Rule | undefined {
  return rules.find((rule) => candidates.some((value) => typeof value === 'string' && rule.pattern.test(value)));
}

export { globToRegExp } from '../shared/glob.js';
