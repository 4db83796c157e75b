// What every package's unit-test project shares (each package's vitest.config.ts spreads it).
// The end-to-end projects (vitest.e2e.config.ts) set their own: processes and installs, not imports.

/** Unit-test settings: limits that only catch hangs, and one module graph per worker. */
export const unitTestDefaults = {
  // A test's work is fixed: the limits only catch a hang, with room for CI's two cores running
  // every suite at once (a 1.6 s property test took 33 s there).
  testTimeout: 120_000,
  hookTimeout: 180_000,
  // The files of a worker share one module graph: importing the sources again for each file was
  // up to half of a suite's time. A package whose tests change a module's state (stubbed globals,
  // mocked modules) keeps isolation and does not spread this.
  isolate: false,
} as const;
