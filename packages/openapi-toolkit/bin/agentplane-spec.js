#!/usr/bin/env node
// The `agentplane-spec` executable (lint, build, server artifacts). It is committed rather than
// built so that npm links it at install time; the program itself is dist/cli.js (src/cli.ts).
import fs from 'node:fs';

if (!fs.existsSync(new URL('../dist/cli.js', import.meta.url))) {
  process.stderr.write('agentplane-spec: the toolkit is not built yet; run `npm run build` at the repository root.\n');
  process.exit(1);
}
const { main } = await import('../dist/cli.js');
process.exitCode = await main(process.argv.slice(2));
