// The CLI's behaviour as a CI pipeline sees it, against the emulator: once in process through an
// injected fetch, once over HTTP with the global fetch (as against a real server URL). Anything
// the emulator reports (a contract violation, an internal error) fails the test that caused it.
import { afterEach, describe, expect } from 'vitest';
import { httpEmulatorTarget, inProcessEmulatorTarget } from './support/emulator-target.js';
import { describeCliScenarios } from './support/scenarios.js';

for (const [label, makeTarget] of [
  ['in process (injected fetch)', async () => inProcessEmulatorTarget()],
  ['over HTTP (global fetch)', httpEmulatorTarget],
] as const) {
  describe(`against the emulator ${label}`, () => {
    let target: Awaited<ReturnType<typeof makeTarget>> | undefined;
    afterEach(() => {
      expect(target?.errors.splice(0), 'the emulator reported errors').toEqual([]);
    });
    describeCliScenarios(async () => (target = await makeTarget()));
  });
}
