// The emulator reads the same bundled specs the client packages publish: routes, request
// validation and response checks are all derived from them at start-up, never re-declared.
import fs from 'node:fs';
import { createRequire } from 'node:module';

export type ApiName = 'control-plane' | 'agent-server';
export type OpenApiDocument = Record<string, any> & { paths: Record<string, any>; components?: Record<string, any> };

const require = createRequire(import.meta.url);
const BUNDLES: Record<ApiName, string> = {
  'control-plane': '@agentplane/control-plane/openapi.json',
  'agent-server': '@agentplane/agent-server/openapi.json',
};

export function specPath(api: ApiName): string {
  return require.resolve(BUNDLES[api]);
}

export function loadSpec(api: ApiName): OpenApiDocument {
  return JSON.parse(fs.readFileSync(specPath(api), 'utf8')) as OpenApiDocument;
}
