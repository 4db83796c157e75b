// The emulator on a free port for a whole e2e test file, as a pipeline reaches a control plane:
// started before the first test, closed after the last, and the file fails when the emulator
// reported a contract violation or an internal error.
import type { EmulatorConfig, RunningEmulator } from '@agentplane/emulator';
import { startEmulator } from '@agentplane/emulator';
import { afterAll, beforeAll, expect } from 'vitest';
import { TEST_EMULATOR_CONFIG } from './control-plane.js';

export function useHttpEmulator(options: { revisionStepMs: number; config?: EmulatorConfig }): () => RunningEmulator {
  let emulator: RunningEmulator | undefined;
  const errors: string[] = [];
  beforeAll(async () => {
    emulator = await startEmulator({
      db: ':memory:',
      controlPlanePort: 0,
      agentServerPort: 0,
      config: options.config ?? TEST_EMULATOR_CONFIG,
      revisionStepMs: options.revisionStepMs,
      validateResponses: true,
      onError: (m) => errors.push(m),
    });
  });
  afterAll(async () => {
    await emulator?.close();
    expect(errors).toEqual([]);
  });
  return () => emulator!;
}
