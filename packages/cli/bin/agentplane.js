#!/usr/bin/env node
// The `agentplane` executable. It is committed rather than built so that npm links it at install
// time, before anything is built: `npx agentplane` works in the repository right after `npm ci`
// and a build. The process itself lives in dist/bin.js (src/bin.ts).
import fs from 'node:fs';

if (!fs.existsSync(new URL('../dist/bin.js', import.meta.url))) {
  process.stderr.write('agentplane: the CLI is not built yet; run `npm run build` (or `npm start`) at the repository root.\n');
  process.exit(1);
}
await import('../dist/bin.js');
