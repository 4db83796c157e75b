// The `$schema` a recording's header names, for an editor to check and complete the file: the
// config format's JSON Schema as the app's project has it installed (`@agentplane/emulator/
// config.schema.json`, resolved from the recording's folder, written relative to it), so that it
// resolves offline and is the schema of the version the project runs; where the recording lies
// outside such a project, the schema of the emulator that wrote it, by absolute path. The header
// names that version too.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** This emulator's version (src/ and dist/ both sit two folders below the package). */
export const EMULATOR_VERSION = (require('../../package.json') as { version: string }).version;

/** Where the recording `out` finds the config's JSON Schema: a path relative to its folder, or absolute. */
export function schemaReference(out: string): string {
  const folder = path.dirname(path.resolve(out));
  let schema: string;
  try {
    // Resolved as a module of the recording's folder would resolve it (from the emulator's own
    // module, the package would find itself by its name, wherever the recording lies).
    schema = createRequire(path.join(folder, 'recording.js')).resolve('@agentplane/emulator/config.schema.json');
  } catch {
    return fileURLToPath(new URL('../../dist/config.schema.json', import.meta.url));
  }
  const relative = path.relative(folder, schema).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
