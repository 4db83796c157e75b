// The checks every API's spec must pass, run by each client package's test suite against the
// artifacts that package ships (its bundles and generated types). The expected operation table
// is written in each package's test, so removing or renaming an operation fails loudly.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { lint, loadConfig } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { apiPaths, REDOCLY_CONFIG, REPO_ROOT } from '../apis.js';
import { listOperations, loadBundle, resolveRef } from '../document.js';
import { createValidator } from '../schema-validator.js';
import { generateTypes } from '../typegen.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

export interface ExpectedOperation {
  operationId: string;
  method: string;
  path: string;
  /** Every documented status code, success and errors. */
  statuses: string[];
}

export function describeSpecContract(api: string, expected: ExpectedOperation[]): void {
  const paths = apiPaths(api);
  const spec = loadBundle(api);
  const validate = createValidator(spec);
  const operations = listOperations(spec);

  describe(`${api} spec`, () => {
    it('lints with zero errors and zero warnings (Redocly CLI, redocly.yaml rules)', async () => {
      const cli = path.join(path.dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
      const { stdout } = await run(process.execPath, [cli, 'lint', api, '--format', 'json', '--config', REDOCLY_CONFIG], {
        cwd: REPO_ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
      }).catch((error) => error);
      const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
      expect(report.problems.map((p: any) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    });

    it('bundles into one self-contained OpenAPI 3.1 document, the same in YAML and JSON', async () => {
      expect(spec.openapi).toMatch(/^3\.1\.\d+$/);
      const refs = JSON.stringify(spec).match(/"\$ref":"[^"]*"/g) ?? [];
      expect(refs.filter((ref) => !ref.startsWith('"$ref":"#'))).toEqual([]);
      expect(YAML.parse(fs.readFileSync(paths.bundleYaml, 'utf8'))).toEqual(spec);
      // The bundle alone (no split files) must pass the same rules as the source.
      const config = await loadConfig({ configPath: REDOCLY_CONFIG });
      const problems = await lint({ ref: paths.bundleJson, config });
      expect(problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    });

    it('declares exactly the expected operations and status codes', () => {
      const actual = operations.map(({ operationId, method, path: route, operation }) => ({
        operationId,
        method,
        path: route,
        statuses: Object.keys(operation.responses).sort(),
      }));
      const sort = (list: ExpectedOperation[]) => [...list].sort((a, b) => a.operationId.localeCompare(b.operationId));
      expect(sort(actual)).toEqual(sort(expected.map((op) => ({ ...op, statuses: [...op.statuses].sort() }))));
    });

    it('documents every operation: summary, description, a declared tag, security, errors', () => {
      const tags = new Set((spec.tags ?? []).map((t: any) => t.name));
      for (const { operationId, operation } of operations) {
        expect(operation.summary, operationId).toBeTruthy();
        expect(operation.description?.length, operationId).toBeGreaterThan(40);
        expect(operation.tags?.length, operationId).toBeGreaterThan(0);
        for (const tag of operation.tags) expect(tags.has(tag), `${operationId} tag ${tag}`).toBe(true);
        expect(operation.security ?? spec.security, operationId).toBeDefined();
        expect(
          Object.keys(operation.responses).some((s) => s.startsWith('4')),
          operationId,
        ).toBe(true);
      }
    });

    it('gives every request body and response a named example that validates against its schema', () => {
      let checked = 0;
      for (const { operationId, operation, pointer } of operations) {
        const bodies: [string, any][] = Object.entries(operation.responses).map(([status, response]) => [
          `${pointer}/responses/${status}`,
          resolveRef(spec, response),
        ]);
        if (operation.requestBody) bodies.push([`${pointer}/requestBody`, resolveRef(spec, operation.requestBody)]);
        for (const [where, body] of bodies) {
          // 204 No Content, and 202 Accepted of a request whose effect follows (a run being
          // cancelled), are the answers without a body, and must declare none.
          if (where.endsWith('/responses/204') || where.endsWith('/responses/202')) {
            expect(body.content, `${operationId} ${where} declares no body`).toBeUndefined();
            continue;
          }
          // 101 Switching Protocols opens a WebSocket (decision S11): no body, and `x-websocket`
          // describes its messages; each example is a conversation whose every message matches.
          if (where.endsWith('/responses/101')) {
            expect(body.content, `${operationId} ${where} declares no body`).toBeUndefined();
            const socket = body['x-websocket'];
            expect(socket?.['client-messages'], `${operationId} ${where} has x-websocket client-messages`).toBeDefined();
            expect(socket?.['server-messages'], `${operationId} ${where} has x-websocket server-messages`).toBeDefined();
            const conversations = Object.entries<any>(socket.examples ?? {});
            expect(conversations.length, `${operationId} ${where} has named example conversations`).toBeGreaterThan(0);
            for (const [name, example] of conversations) {
              const resolved = resolveRef(spec, example);
              expect(resolved.summary, `${where} example ${name} has a summary`).toBeTruthy();
              expect(Array.isArray(resolved.value) && resolved.value.length > 0, `${where} example ${name} is a list of messages`).toBe(
                true,
              );
              for (const [i, message] of (resolved.value as Record<string, unknown>[]).entries()) {
                const side = 'client' in message ? 'client' : 'server';
                const result = validate(socket[`${side}-messages`], message[side]);
                expect(result.errors, `${operationId} ${where} example ${name}, message ${i} (${side})`).toBe('');
              }
              checked++;
            }
            continue;
          }
          // A stream of Server-Sent Events is the other body (decision S10): its examples are the
          // stream's text, and each of their events must match the media type's x-event-schema.
          const stream = body.content?.['text/event-stream'];
          const media = body.content?.['application/json'] ?? stream;
          expect(media, `${operationId} ${where} has an application/json or text/event-stream body`).toBeDefined();
          if (stream) expect(stream['x-event-schema'], `${operationId} ${where} has an x-event-schema`).toBeDefined();
          const examples = Object.entries(media.examples ?? {});
          expect(examples.length, `${operationId} ${where} has named examples`).toBeGreaterThan(0);
          for (const [name, example] of examples) {
            const resolved = resolveRef(spec, example);
            expect(resolved.summary, `${where} example ${name} has a summary`).toBeTruthy();
            const result = validate(media.schema, resolved.value);
            expect(result.errors, `${operationId} ${where} example ${name}`).toBe('');
            if (media === stream) {
              const events = parseEventStream(resolved.value);
              expect(events.length, `${operationId} ${where} example ${name} has events`).toBeGreaterThan(0);
              for (const [i, event] of events.entries()) {
                const eventResult = validate(stream['x-event-schema'], event);
                expect(eventResult.errors, `${operationId} ${where} example ${name}, event ${i} (${event.event})`).toBe('');
              }
            }
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(operations.length * 2);
    });

    it('describes every schema property', () => {
      const missing: string[] = [];
      const visit = (schema: any, where: string) => {
        if (!schema || typeof schema !== 'object') return;
        if (schema.$ref) return; // described where it is defined
        for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
          const target = resolveRef(spec, property);
          if (!property.description && !target?.description) missing.push(`${where}.${name}`);
          visit(property, `${where}.${name}`);
        }
        // if/then/else/not only restate properties declared (and described) on the schema itself.
        for (const key of ['items', 'additionalProperties']) visit(schema[key], `${where}/${key}`);
        for (const key of ['allOf', 'oneOf', 'anyOf']) {
          for (const [i, s] of (schema[key] ?? []).entries()) visit(s, `${where}/${key}/${i}`);
        }
      };
      for (const [name, schema] of Object.entries<any>(spec.components?.schemas ?? {})) {
        expect(schema.description, `schema ${name} has a description`).toBeTruthy();
        visit(schema, name);
      }
      for (const { operationId, operation } of operations) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          visit(resolveRef(spec, response).content?.['application/json']?.schema, `${operationId} ${status}`);
        }
      }
      expect(missing).toEqual([]);
    });

    it('declares its request limits (x-request-limits) and states them in words in the description', () => {
      const limits = spec['x-request-limits'];
      expect(Object.keys(limits).sort()).toEqual(['body-bytes', 'header-bytes', 'json-depth']);
      const words = (spec.info.description as string).replace(/\s+/g, ' ');
      expect(words).toContain(`at most ${limits['body-bytes'] / 1024 / 1024} MiB`);
      expect(words).toContain(`nested at most ${limits['json-depth']} levels`);
      expect(words).toContain(`headers may total ${limits['header-bytes'] / 1024} KiB`);
    });

    it('bounds every number: each integer or number schema declares its minimum and maximum', () => {
      const unbounded: string[] = [];
      const visit = (node: unknown, where: string) => {
        if (!node || typeof node !== 'object') return;
        if (Array.isArray(node)) {
          node.forEach((item, i) => {
            visit(item, `${where}/${i}`);
          });
          return;
        }
        const schema = node as Record<string, any>;
        const types = [schema.type].flat();
        if ((types.includes('integer') || types.includes('number')) && (schema.minimum === undefined || schema.maximum === undefined))
          unbounded.push(where);
        for (const [key, value] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') visit(value, `${where}/${key}`);
      };
      visit(spec.components, '#/components');
      visit(spec.paths, '#/paths');
      expect(unbounded).toEqual([]);
    });

    it('generates TypeScript types from redocly.yaml, and the committed build output is fresh', async () => {
      const config = await loadConfig({ configPath: REDOCLY_CONFIG });
      const generated = await generateTypes(paths.specRoot, config);
      expect(fs.readFileSync(paths.typesFile, 'utf8')).toBe(generated);
      for (const { operationId } of expected) expect(generated).toContain(`    ${operationId}: {`);
      for (const name of Object.keys(spec.components?.schemas ?? {})) expect(generated).toContain(`        ${name}: `);
    });
  });
}

/**
 * The events of a `text/event-stream` text, each as `{event, data, id}` with its `data` read as
 * JSON (the form `x-event-schema` describes); comment lines are skipped.
 */
export function parseEventStream(text: string): { event?: string; data?: unknown; id?: string }[] {
  const events: { event?: string; data?: unknown; id?: string }[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const event: { event?: string; data?: unknown; id?: string } = {};
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event.event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') event.id = value;
    }
    if (data.length > 0) event.data = JSON.parse(data.join('\n'));
    if (event.event !== undefined || data.length > 0) events.push(event);
  }
  return events;
}
