// Starts an in-memory emulator on free ports for a test file, with typed clients for both APIs,
// and fails the test when the emulator reported a contract violation or an internal error.
import { createAgentServerClient } from '@agentplane/agent-server';
import { createControlPlaneClient } from '@agentplane/control-plane';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { EmulatorConfig } from '../src/config.js';
import type { RunningEmulator } from '../src/emulator.js';
import { startEmulator } from '../src/emulator.js';

export interface Fixture {
  emulator: RunningEmulator;
  agent: ReturnType<typeof createAgentServerClient>;
  control: ReturnType<typeof createControlPlaneClient>;
  /** Control-plane client with another API key (or none). */
  controlAs(apiKey: string): ReturnType<typeof createControlPlaneClient>;
  /** Moves the lifecycle clock forward. */
  advance(ms: number): void;
  errors: string[];
}

export function useEmulator(options: { config?: EmulatorConfig; revisionStepMs?: number; apiKey?: string } = {}): Fixture {
  const fixture = { errors: [] as string[] } as Fixture;
  let clock = Date.now();
  beforeAll(async () => {
    fixture.emulator = await startEmulator({
      db: ':memory:',
      config: options.config,
      controlPlanePort: 0,
      agentServerPort: 0,
      revisionStepMs: options.revisionStepMs ?? 1000,
      validateResponses: true,
      onError: (message) => fixture.errors.push(message),
      now: () => clock,
    });
    const apiKey = options.apiKey ?? fixture.emulator.defaultApiKey!;
    fixture.agent = createAgentServerClient({ baseUrl: fixture.emulator.agentServerUrl, retry: false });
    fixture.controlAs = (key) => createControlPlaneClient({ baseUrl: fixture.emulator.controlPlaneUrl, apiKey: key, retry: false });
    fixture.control = fixture.controlAs(apiKey);
    fixture.advance = (ms) => void (clock += ms);
  });
  afterEach(() => {
    expect(fixture.errors, 'the emulator reported contract violations or internal errors').toEqual([]);
  });
  afterAll(async () => {
    await fixture.emulator?.close();
  });
  return fixture;
}
