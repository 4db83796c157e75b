// The emulator's layout, held as a rule rather than a drawing: src/ is a stack of rooms, each
// importing only rooms below it, and no file imports itself back through others. The agent server
// is a room per resource (threads/, assistants/, runs/, store-items/, crons/, graphs/, system/,
// protocol/);
// the handler map's type (handler-map.ts) imports none of the groups it types, and only
// handlers.ts, at the top, gathers them. A new room joins the table below with what it may import;
// an import the table does not allow fails here, naming the file and the import.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

/**
 * Each room of src/ (a folder or a file, as a path from src/ without extension) and the rooms it
 * may import, besides itself. `generated/` (the spec's artefacts) is ground every room may use.
 * The order is the stack, bottom first.
 */
const ROOMS: [room: string, mayImport: string[]][] = [
  ['shared', []],
  ['store', ['shared']],
  ['contract', ['shared']],
  ['http', ['contract', 'shared', 'store']],
  ['agent-server/handler-map', ['http']],
  ['agent-server/graphs', ['shared']],
  ['agent-server/system', ['agent-server/handler-map']],
  ['agent-server/store-items', ['agent-server/handler-map', 'contract', 'shared', 'store']],
  ['agent-server/threads', ['agent-server/graphs', 'agent-server/handler-map', 'contract', 'http', 'shared', 'store']],
  [
    'agent-server/assistants',
    ['agent-server/graphs', 'agent-server/threads', 'agent-server/handler-map', 'contract', 'http', 'shared', 'store'],
  ],
  [
    'agent-server/runs',
    [
      'agent-server/graphs',
      'agent-server/threads',
      'agent-server/store-items',
      'agent-server/handler-map',
      'contract',
      'http',
      'shared',
      'store',
    ],
  ],
  [
    'agent-server/crons',
    [
      'agent-server/graphs',
      'agent-server/threads',
      'agent-server/assistants',
      'agent-server/runs',
      'agent-server/handler-map',
      'contract',
      'http',
      'shared',
      'store',
    ],
  ],
  [
    'agent-server/protocol',
    ['agent-server/threads', 'agent-server/runs', 'agent-server/handler-map', 'contract', 'http', 'shared', 'store'],
  ],
  ['agent-server/handlers', ['agent-server']],
  ['config', ['agent-server/graphs', 'shared']],
  ['control-plane', ['config', 'contract', 'http', 'shared', 'store']],
  ['recorder', ['agent-server/graphs', 'config', 'shared']],
  ['emulator', ['agent-server', 'config', 'contract', 'control-plane', 'http', 'shared', 'store']],
  ['seeding', ['agent-server', 'store']],
  ['index', ['agent-server/graphs', 'config', 'emulator', 'http']],
  ['cli', ['config', 'emulator', 'recorder', 'shared']],
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The files of src/ that a file imports (static imports, re-exports and import() of a literal). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)].map(
    (match) => (match[1] ?? match[2])!,
  );
  return specifiers.map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'));
}

const relative = (file: string) => path.relative(SRC, file).replace(/\.ts$/, '');

/** The room a file of src/ stands in: the longest room path that holds it. */
function roomOf(file: string): string | undefined {
  const name = relative(file);
  if (name.startsWith('generated/')) return 'generated';
  return ROOMS.map(([room]) => room)
    .filter((room) => name === room || name.startsWith(`${room}/`))
    .sort((a, b) => b.length - a.length)[0];
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => !target.includes(`${path.sep}generated${path.sep}`))]));

describe('the layout of src/', () => {
  it('places every file in a room of the table', () => {
    expect(files.filter((file) => roomOf(file) === undefined).map(relative)).toEqual([]);
  });

  it('imports only rooms below, as the table allows', () => {
    const allowed = new Map(ROOMS);
    const breaches: string[] = [];
    for (const [file, targets] of graph) {
      const room = roomOf(file)!;
      for (const target of targets) {
        const targetRoom = roomOf(target);
        if (targetRoom === room || targetRoom === 'generated') continue;
        const ok = allowed.get(room)!.some((below) => targetRoom === below || targetRoom?.startsWith(`${below}/`));
        if (!ok) breaches.push(`${relative(file)} imports ${relative(target)} (room ${targetRoom})`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it('has no circle of imports between files', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const trail: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      trail.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open') circles.push([...trail.slice(trail.indexOf(target)), target].map(relative).join(' -> '));
        else if (!state.has(target)) visit(target);
      }
      trail.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it('keeps the handler groups off the file that gathers them', () => {
    const gatherer = path.join(SRC, 'agent-server/handlers.ts');
    const importers = [...graph].filter(([, targets]) => targets.includes(gatherer)).map(([file]) => relative(file));
    expect(importers).toEqual(['emulator']);
  });

  it('finds the imports it checks (a rule over no imports would pass anything)', () => {
    const engine = importsOf(path.join(SRC, 'agent-server/runs/run-engine.ts')).map(relative);
    expect(engine).toContain('agent-server/threads/thread-store');
    expect(importsOf(path.join(SRC, 'index.ts')).map(relative)).toContain('emulator');
  });
});
