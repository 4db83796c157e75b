// better-sqlite3, the SQLite driver the emulator stores everything with, is a native module: its
// install script builds (or downloads) a binary for the Node.js that installed it. When that
// script did not run (pnpm runs no install scripts unless told; `npm install --ignore-scripts`), or
// ran for another Node.js or platform, the driver fails at its first use with a message about
// bindings files that says nothing of the cause. This turns such a failure into what to do.

/** The failure said as what to do, when `error` is the driver's native binary failing to load; else undefined. */
export function nativeDriverProblem(error: unknown): Error | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const unbuilt = message.includes('Could not locate the bindings file');
  const mismatched = code === 'ERR_DLOPEN_FAILED' || /NODE_MODULE_VERSION|invalid ELF header|wrong ELF class|mach-o/i.test(message);
  if (!unbuilt && !mismatched) return undefined;
  const cause = unbuilt
    ? 'has no native build: its install script did not run (pnpm runs none unless a package is allowed to; `npm install --ignore-scripts` skips them)'
    : `was built for another Node.js or platform than this one (Node.js ${process.version}, ${process.platform}-${process.arch})`;
  return new Error(
    [
      `better-sqlite3, the SQLite driver the emulator keeps its data with, ${cause}.`,
      'Build it in your project: `npm rebuild better-sqlite3` (pnpm: `pnpm rebuild better-sqlite3`, and allow it under',
      '`pnpm.onlyBuiltDependencies` in package.json so later installs build it; yarn: `yarn rebuild better-sqlite3`).',
      'Where no prebuilt binary downloads, it compiles from source, which needs python3, make and a C++ compiler.',
      `(The driver said: ${message.split('\n')[0]})`,
    ].join('\n'),
  );
}
