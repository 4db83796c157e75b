// End to end: the CLI scenarios against a real emulator on localhost, with a fast
// revision clock, reached with the global fetch as a pipeline would reach a control plane. The
// emulator checks every answer against the spec; anything it reports through onError (a
// contract violation, an internal error) fails the test that caused it.
import { type RunningEmulator, startEmulator } from '@agentplane/emulator';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { emulatorStartOptions, emulatorTarget } from './support/emulator-target.js';
import { describeCliScenarios } from './support/scenarios.js';

describe('against the emulator (HTTP, fast revision clock)', () => {
  let emulator: RunningEmulator;
  const errors: string[] = [];
  beforeAll(async () => {
    emulator = await startEmulator(emulatorStartOptions((message) => errors.push(message)));
  });
  afterEach(() => {
    expect(errors.splice(0), 'the emulator reported errors').toEqual([]);
  });
  afterAll(async () => {
    await emulator?.close();
  });

  describeCliScenarios(() => emulatorTarget(emulator));
});
