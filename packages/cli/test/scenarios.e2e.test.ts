// The CLI scenarios against the emulator on a port, reached with the global fetch as a pipeline
// reaches a real control plane.
import { afterEach, describe, expect } from 'vitest';
import { httpEmulatorTarget } from './support/emulator-target.js';
import { describeCliScenarios } from './support/scenarios.js';

describe('against the emulator over HTTP (global fetch)', () => {
  let target: Awaited<ReturnType<typeof httpEmulatorTarget>> | undefined;
  afterEach(() => {
    expect(target?.errors.splice(0), 'the emulator reported errors').toEqual([]);
  });
  describeCliScenarios(async () => (target = await httpEmulatorTarget()));
});
