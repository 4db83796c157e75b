// The SQLite driver's native binary failing to load is said as what to do (the packed-install test
// holds it on a real install without the build); any other failure passes through unchanged.
import { describe, expect, it } from 'vitest';
import { nativeDriverProblem } from '../src/store/native-driver.js';

describe('a native driver that does not load', () => {
  it("not built (install scripts off): how to build it, with the driver's own words", () => {
    const problem = nativeDriverProblem(
      new Error('Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/...'),
    );
    expect(problem?.message).toMatch(/^better-sqlite3, the SQLite driver the emulator keeps its data with, has no native build/);
    expect(problem?.message).toContain('`npm rebuild better-sqlite3`');
    expect(problem?.message).toContain('pnpm.onlyBuiltDependencies');
    expect(problem?.message).toContain('(The driver said: Could not locate the bindings file. Tried:)');
  });

  it('built for another Node.js: rebuild it for this one', () => {
    const error = Object.assign(new Error('The module was compiled against a different Node.js version using NODE_MODULE_VERSION 127.'), {
      code: 'ERR_DLOPEN_FAILED',
    });
    expect(nativeDriverProblem(error)?.message).toContain(
      `was built for another Node.js or platform than this one (Node.js ${process.version}`,
    );
  });

  it('anything else is not its business', () => {
    expect(nativeDriverProblem(new Error('SQLITE_CANTOPEN: unable to open database file'))).toBeUndefined();
  });
});
