// The CLI's behaviour as a CI pipeline sees it, against the emulator in process through an
// injected fetch (scenarios.e2e.test.ts runs the same scenarios over HTTP). Anything the emulator
// reports (a contract violation, an internal error) fails the test that caused it.
import { afterEach, describe, expect } from 'vitest';
import { inProcessEmulatorTarget } from './support/emulator-target.js';
import { describeCliScenarios } from './support/scenarios.js';

describe('against the emulator in process (injected fetch)', () => {
  let target: ReturnType<typeof inProcessEmulatorTarget> | undefined;
  afterEach(() => {
    expect(target?.errors.splice(0), 'the emulator reported errors').toEqual([]);
  });
  describeCliScenarios(() => (target = inProcessEmulatorTarget()));
});
