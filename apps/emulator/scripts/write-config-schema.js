// Writes dist/config.schema.json, the JSON Schema of the emulator's config file (published as
// `@agentplane/emulator/config.schema.json`): the one schema the emulator validates configs with
// (src/config.ts's publishedConfigSchema, whose `graphs` are src/agent-server/graphs/graph-config.ts),
// each part it repeats written once under `definitions`. An editor with the YAML language server
// completes and checks a config with it:
//   # yaml-language-server: $schema=./node_modules/@agentplane/emulator/dist/config.schema.json
import fs from 'node:fs';
import { publishedConfigSchema } from '../dist/config/config.js';

const out = new URL('../dist/config.schema.json', import.meta.url);
fs.writeFileSync(out, `${JSON.stringify(publishedConfigSchema(), null, 2)}\n`);
