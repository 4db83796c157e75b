// The emulator as a Target: the CLI scenarios against the real, stateful control plane, in
// process or over HTTP, on a fast real-time revision clock. Outcomes map onto the emulator's
// `revision_outcomes` globs by an image / ref suffix (`*--build-failed`, ...); SLOW is simply a
// revision the config leaves to DEPLOYED, which on this clock takes three steps (QUEUED,
// AWAITING_DEPLOY, DEPLOYING), well past `shortTimeoutFlag`. The invalid key is a key no tenant has.
import { createEmulator, startEmulator } from '@agentplane/emulator';
import { CONTROL_PLANE_CREDENTIALS, TEST_EMULATOR_CONFIG } from './control-plane.js';
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
const STEP_MS = 250;

function emulatorTarget(
  label: string,
  baseUrl: string,
  fetch: Target['fetch'],
  errors: string[],
  close: () => Promise<void>,
): Target & { errors: string[] } {
  let images = 0;
  return {
    label,
    baseUrl,
    apiKey: CONTROL_PLANE_CREDENTIALS.apiKey,
    invalidApiKey: 'no-tenant-has-this-key',
    ...(fetch ? { fetch } : {}),
    image: (outcome) => `registry.test/agents/app:1.0.${++images}${SUFFIX[outcome]}`,
    ref: (outcome) => `main${SUFFIX[outcome]}`,
    intervalFlag: '25ms',
    timeoutFlag: '20s',
    // A SLOW revision is DEPLOYED 3 × 250ms = 750ms after it is created; this gives up well before.
    shortTimeoutFlag: '300ms',
    errors,
    close,
  };
}

/** The emulator in process, reached through its fetch function (no socket). */
export function inProcessEmulatorTarget(): Target & { errors: string[] } {
  const errors: string[] = [];
  const emulator = createEmulator({
    config: TEST_EMULATOR_CONFIG,
    revisionStepMs: STEP_MS,
    validateResponses: true,
    onError: (m) => errors.push(m),
  });
  return emulatorTarget('emulator in process (injected fetch)', emulator.controlPlane.url, emulator.controlPlane.fetch, errors, async () =>
    emulator.close(),
  );
}

/** The emulator on a free port, reached with the global fetch as a pipeline would reach a control plane. */
export async function httpEmulatorTarget(): Promise<Target & { errors: string[] }> {
  const errors: string[] = [];
  const emulator = await startEmulator({
    db: ':memory:',
    controlPlanePort: 0,
    agentServerPort: 0,
    config: TEST_EMULATOR_CONFIG,
    revisionStepMs: STEP_MS,
    validateResponses: true,
    onError: (m) => errors.push(m),
  });
  return emulatorTarget(`emulator at ${emulator.controlPlaneUrl}`, emulator.controlPlaneUrl, undefined, errors, () => emulator.close());
}
