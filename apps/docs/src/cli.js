#!/usr/bin/env node
// Serves the built docs: --port / AGENTPLANE_DOCS_PORT (default 8080), --host (default 127.0.0.1).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { serveStatic } from './serve.js';
import { DIST_DIR } from './site.js';

const { values: flags } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } } });
const port = Number(flags.port ?? process.env.AGENTPLANE_DOCS_PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, got "${flags.port ?? process.env.AGENTPLANE_DOCS_PORT}"`);
  process.exit(2);
}
if (!fs.existsSync(path.join(DIST_DIR, 'index.html'))) {
  console.error('apps/docs/dist is missing: run `npm run build` first');
  process.exit(1);
}
const site = await serveStatic({ root: DIST_DIR, port, host: flags.host ?? '127.0.0.1' });
console.log(`Docs: ${site.url}/`);
const stop = () => void site.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
