// The published JSON Schema of the config (dist/config.schema.json, `@agentplane/emulator/
// config.schema.json`, written by the build from the schema the emulator validates with) against
// the emulator's own reading of a config (checkConfig): the same configs, the same verdicts. An
// editor checking a config with the schema refuses what the emulator refuses at start-up, and
// accepts what it accepts, but for the rules that tie one part of a config to another (a key a step
// writes must be a state key, a node an edge or a step names must be a node, a graph id is no
// UUID), which JSON Schema cannot say: those are the emulator's alone, and listed here.
import fs from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { checkConfig, publishedConfigSchema } from '../src/config/config.js';

const schema = JSON.parse(fs.readFileSync(new URL('../dist/config.schema.json', import.meta.url), 'utf8'));
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

const accepts = (config: unknown) => validate(config);
function emulatorAccepts(config: unknown): boolean {
  try {
    checkConfig(config);
    return true;
  } catch {
    return false;
  }
}

/** The README's configs, as written there (YAML blocks that start with a top-level key of the config). */
function readmeConfigs(): unknown[] {
  const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  // A block the README follows with "is refused" shows what the emulator refuses: not a config.
  return [...readme.matchAll(/```yaml\n([\s\S]*?)```(\s*is refused)?/g)]
    .filter((match) => match[2] === undefined && /^(graphs|tenants|revision_outcomes|cors|agent_server|crons):/m.test(match[1]!))
    .map((match) => YAML.parse(match[1]!));
}

const VALID: Record<string, unknown> = {
  'no config at all': {},
  'the ReAct shorthand': {
    graphs: {
      support: {
        state: { topic: null },
        replies: [
          { match: '*order*', text: 'Looking.', tool_calls: [{ name: 'lookup', args: { id: 1 } }] },
          { text: 'Done.', update: { topic: 'x' } },
        ],
        tools: { lookup: 'Order {{args.id}}' },
        stream: { chunk: 'char', delay_ms: 5 },
      },
    },
  },
  'a graph of any shape': {
    graphs: {
      research: {
        channels: { messages: { reducer: 'messages', default: [] }, notes: { reducer: 'append', default: [] } },
        nodes: ['plan', 'search', 'review'],
        edges: [
          { from: '__start__', to: 'plan' },
          { from: 'plan', to: ['search', '__end__'], routes: [{ value: '{{state.notes}}', empty: true, to: 'search' }, { to: '__end__' }] },
        ],
        assistant: { config: { configurable: { model: 'x' } }, metadata: { team: 'a' } },
        interrupt_before: ['review'],
        runs: [
          {
            match: '*report*',
            steps: [
              { node: 'plan', goto: 'search', update: { notes: ['planned'] } },
              {
                parallel: [
                  { node: 'search', delay_ms: 10, custom: [{ p: 1 }] },
                  { node: 'review', message: { chunks: ['a', 'b'] } },
                ],
              },
              { node: 'review', subgraph: [{ node: 'check', interrupt: { q: 1 } }] },
              { node: 'plan', error: { name: 'CustomError', message: 'no' } },
            ],
          },
        ],
      },
    },
  },
};

const INVALID: Record<string, unknown> = {
  'an unknown top-level key': { graph: {} },
  'a reply with an unknown key': { graphs: { g: { replies: [{ txt: 'x' }] } } },
  'an empty replies list': { graphs: { g: { replies: [] } } },
  'a chunking that is not one': { graphs: { g: { replies: [{ text: 'x' }], stream: { chunk: 'token' } } } },
  'a delay beyond ten minutes': { graphs: { g: { runs: [{ steps: [{ node: 'a', delay_ms: 600_001 }] }] } } },
  'a step without a node': { graphs: { g: { runs: [{ steps: [{ update: {} }] }] } } },
  'a step named __end__': { graphs: { g: { runs: [{ steps: [{ node: '__end__' }] }] } } },
  'a parallel step of one task': { graphs: { g: { runs: [{ steps: [{ parallel: [{ node: 'a' }] }] }] } } },
  'a do action doing two things': { graphs: { g: { runs: [{ steps: [{ node: 'a', do: [{ custom: 1, delay_ms: 2 }] }] }] } } },
  'a reducer that is not one': { graphs: { g: { channels: { n: { reducer: 'sum' } }, runs: [] } } },
  'a store read without a name': { graphs: { g: { runs: [{ steps: [{ node: 'a', store_get: [{ namespace: ['u'], key: 'k' }] }] }] } } },
  'a tenant without keys': { tenants: [{ id: 't', api_keys: [] }] },
  'a revision outcome that is not terminal': { revision_outcomes: [{ match: '*', status: 'BUILDING' }] },
  'an origin with a path': { cors: { origins: ['http://localhost:3000/app'] } },
};

/** Rules that relate one part of a config to another, which JSON Schema cannot say: the emulator checks them at start-up. */
const EMULATOR_ONLY: Record<string, unknown> = {
  'a key a step writes is not a state key': { graphs: { g: { runs: [{ steps: [{ node: 'a', update: { unknown: 1 } }] }] } } },
  'an edge to a node the graph does not have': { graphs: { g: { nodes: ['a'], edges: [{ from: 'a', to: 'b' }], runs: [] } } },
  'a graph id that is a UUID': { graphs: { '3b7e9f1a-2c4d-4e6f-8a0b-1c2d3e4f5a6b': { replies: [{ text: 'x' }] } } },
  'a graph with both replies and runs': { graphs: { g: { replies: [{ text: 'x' }], runs: [] } } },
  'a node twice in one superstep': { graphs: { g: { runs: [{ steps: [{ parallel: [{ node: 'a' }, { node: 'a' }] }] }] } } },
  'a route to a node its edge does not reach': {
    graphs: { g: { edges: [{ from: 'a', to: ['b', '__end__'], routes: [{ tool_calls: true, to: 'c' }, { to: '__end__' }] }], runs: [] } },
  },
  'a template that names nothing': { graphs: { g: { replies: [{ text: 'You said {{inptu}}' }] } } },
  'a resume read where nothing is resumed': { graphs: { g: { runs: [{ steps: [{ node: 'a', message: { text: '{{resume}}' } }] }] } } },
  'two tenants sharing a key': {
    tenants: [
      { id: 'a', api_keys: ['k'] },
      { id: 'b', api_keys: ['k'] },
    ],
  },
};

describe('the published config schema', () => {
  it('accepts every config of the README and the valid ones here, as the emulator does', () => {
    // The README's seven: the config reference, a browser's origins, the graphs (ReAct, any shape, a
    // router, requests told apart) and a recording. Fewer means the README or this reading lost one.
    expect(readmeConfigs().length).toBeGreaterThanOrEqual(7);
    const configs = [...readmeConfigs(), ...Object.values(VALID)];
    for (const config of configs) {
      expect(accepts(config), JSON.stringify(validate.errors)).toBe(true);
      expect(emulatorAccepts(config), JSON.stringify(config)).toBe(true);
    }
  });

  it('refuses what the emulator refuses for what it can say', () => {
    for (const [name, config] of Object.entries(INVALID)) {
      expect(accepts(config), name).toBe(false);
      expect(emulatorAccepts(config), name).toBe(false);
    }
  });

  it('leaves to the emulator only the rules that tie one part of a config to another', () => {
    for (const [name, config] of Object.entries(EMULATOR_ONLY)) {
      expect(accepts(config), name).toBe(true);
      expect(emulatorAccepts(config), name).toBe(false);
    }
  });

  it('is the schema the emulator validates with, each shared part once', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(Object.keys(schema.properties)).toEqual(['revision_outcomes', 'tenants', 'graphs', 'cors', 'crons', 'agent_server']);
    expect(JSON.stringify(schema).length).toBeLessThan(60_000);
    // The file the build wrote is the schema checkConfig compiles, byte for byte.
    expect(schema).toEqual(publishedConfigSchema());
    expect(Object.keys(schema.definitions).length).toBeGreaterThan(5);
  });
});
