// A recording's header names the config's JSON Schema where an editor finds it offline: the one
// the project has installed, by a path relative to the recording; outside a project, the one of the
// emulator that wrote it. And the version that wrote it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATOR_VERSION, schemaReference } from '../src/recorder/schema-reference.js';

const packageJson = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

describe("a recording's $schema", () => {
  it("is the installed package's schema, relative to the recording, in a project that has it installed", () => {
    // This workspace has @agentplane/emulator in its node_modules, as an app's project does.
    const out = path.resolve(import.meta.dirname, '..', 'recordings', 'support.yaml');
    const reference = schemaReference(out);
    expect(path.isAbsolute(reference)).toBe(false);
    expect(reference).toMatch(/config\.schema\.json$/);
    expect(fs.existsSync(path.resolve(path.dirname(out), reference))).toBe(true);
  });

  it("is the writing emulator's own schema, by absolute path, outside any project", () => {
    const reference = schemaReference(path.join(os.tmpdir(), 'nowhere', 'recording.yaml'));
    expect(path.isAbsolute(reference)).toBe(true);
    expect(JSON.parse(fs.readFileSync(reference, 'utf8')).title).toBe('agentplane emulator config');
  });

  it('comes with the version that wrote it', () => {
    expect(EMULATOR_VERSION).toBe(packageJson.version);
  });
});
