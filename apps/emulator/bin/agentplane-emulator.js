#!/usr/bin/env node
// The `agentplane-emulator` executable. It is committed rather than built so that npm links it at
// install time; the program itself is dist/cli.js (src/cli.ts).
import fs from 'node:fs';

if (!fs.existsSync(new URL('../dist/cli.js', import.meta.url))) {
  process.stderr.write(
    'agentplane-emulator: the emulator is not built yet; run `npm run build` (or `npm start`) at the repository root.\n',
  );
  process.exit(1);
}
const { main } = await import('../dist/cli.js');
// Exits at once once main is done (the servers are closed, the files written): left to drain, the
// process would hand its signals back to their defaults first, and a second Ctrl-C landing then
// would kill it (exit 130 after a clean stop).
process.exit(await main(process.argv.slice(2)));
