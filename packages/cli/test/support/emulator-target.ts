// The emulator as a Target: the CLI scenarios against a real, stateful control plane
// over HTTP. Outcomes map onto the emulator's `revision_outcomes` globs by an image / ref suffix
// (`*--build-failed`, ...); SLOW is simply a revision the config leaves to DEPLOYED, which on the
// emulator's clock takes three steps (QUEUED, AWAITING_DEPLOY, DEPLOYING), well past
// `shortTimeoutFlag`. The invalid key is a key no tenant has.
import type { EmulatorConfig, EmulatorOptions, RunningEmulator } from '@agentplane/emulator';
import type { Outcome, Target } from './target.js';

const SUFFIX: Record<Outcome, string> = {
  DEPLOYED: '',
  CREATE_FAILED: '--create-failed',
  BUILD_FAILED: '--build-failed',
  DEPLOY_FAILED: '--deploy-failed',
  INTERRUPTED: '--interrupted',
  SLOW: '--slow',
};

/** How long each revision status lasts: an external container reaches DEPLOYED after 3 steps. */
export const EMULATOR_STEP_MS = 250;
export const EMULATOR_API_KEY = 'cli-e2e-key';

/** The emulator config the adapter's image() / ref() rely on. */
export const EMULATOR_CONFIG: EmulatorConfig = {
  revision_outcomes: [
    { match: '*--create-failed', status: 'CREATE_FAILED' },
    { match: '*--build-failed', status: 'BUILD_FAILED' },
    { match: '*--deploy-failed', status: 'DEPLOY_FAILED' },
    { match: '*--interrupted', status: 'INTERRUPTED' },
    // '*--slow' has no rule: it is DEPLOYED, only after 3 steps (a git revision, 5).
  ],
  tenants: [{ id: 'cli-e2e', api_keys: [EMULATOR_API_KEY] }],
};

export function emulatorStartOptions(onError: (message: string) => void): EmulatorOptions {
  return {
    db: ':memory:',
    controlPlanePort: 0,
    agentServerPort: 0,
    revisionStepMs: EMULATOR_STEP_MS,
    config: EMULATOR_CONFIG,
    validateResponses: true,
    onError,
  };
}

export function emulatorTarget(emulator: RunningEmulator): Target {
  let images = 0;
  return {
    label: `emulator at ${emulator.controlPlaneUrl}`,
    baseUrl: emulator.controlPlaneUrl,
    apiKey: EMULATOR_API_KEY,
    invalidApiKey: 'no-tenant-has-this-key',
    image: (outcome) => `registry.test/agents/app:1.0.${++images}${SUFFIX[outcome]}`,
    ref: (outcome) => `main${SUFFIX[outcome]}`,
    intervalFlag: '25ms',
    timeoutFlag: '20s',
    // A SLOW revision is DEPLOYED 3 × 250ms = 750ms after it is created; this gives up well before.
    shortTimeoutFlag: '300ms',
  };
}
