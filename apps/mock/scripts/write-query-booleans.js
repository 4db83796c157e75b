#!/usr/bin/env node
// The mock's build step: each API's boolean query parameters (query-booleans.js), whose `1` and
// `0` the validation translator spells `true` and `false`, written to dist/query-booleans.json.
// Found at build time rather than when the mock starts, so that the published mock reads only
// its dependencies' bundled specs and this file, and needs no private package (decision P11).
import fs from 'node:fs';
import { loadBundle } from '@agentplane/openapi-toolkit';
import { MOCKS, QUERY_BOOLEANS_FILE } from '../src/mocks.js';
import { booleanQueryParameters } from './query-booleans.js';

const booleans = Object.fromEntries(MOCKS.map(({ api }) => [api, [...booleanQueryParameters(loadBundle(api))].sort()]));
fs.mkdirSync(new URL('.', QUERY_BOOLEANS_FILE), { recursive: true });
fs.writeFileSync(QUERY_BOOLEANS_FILE, `${JSON.stringify(booleans, null, 2)}\n`);
