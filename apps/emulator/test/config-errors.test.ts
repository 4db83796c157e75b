// How a config that cannot run is refused: one line per problem the author meant to fix, each
// naming the file, the line and column (YAML and JSON alike), the key path, and what to write
// instead where that can be said; nothing from the branches of the format the author did not mean.
// The same checks hold for a config file and for what `createEmulator` is given in process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, checkConfig, readConfigFile } from '../src/config/config.js';
import { createEmulator } from '../src/emulator.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-config-errors-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The lines of the ConfigError reading `text` as `name` gives (its first line, "<file> is invalid:", left out). */
function problemsOf(name: string, text: string): string[] {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  try {
    readConfigFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as Error).message.split('\n');
    return lines.length === 1 ? lines : lines.slice(1).map((line) => line.trim());
  }
  throw new Error(`${name} was accepted`);
}

const PLANNER = (step: string) => `graphs:
  planner:
    nodes: [plan, answer]
    runs:
      - steps:
          - node: plan
${step}
          - node: answer
            message: { text: done }
`;

describe('a config file with a mistake', () => {
  it('names the one problem of a step, at its line, and what to write instead', () => {
    const lines = problemsOf('custom.yaml', PLANNER('            custom: { stage: planning }'));
    expect(lines).toEqual([
      `${path.join(dir, 'custom.yaml')}:7:13: graphs.planner.runs[0].steps[0].custom: {"stage":"planning"} is not a list; write it as a list: [{"stage":"planning"}]`,
    ]);
  });

  it('suggests the key a typo was meant to be, and says nothing of the parallel form the step is not', () => {
    const [line, ...rest] = problemsOf('typo.yaml', PLANNER('            mesage: { text: hi }'));
    expect(rest).toEqual([]);
    expect(line).toMatch(
      /typo\.yaml:7:13: graphs\.planner\.runs\[0\]\.steps\[0\]\.mesage: unknown key; did you mean message\? allowed here: node, do,/,
    );
    expect(line).not.toMatch(/parallel|anyOf/);
  });

  it('names a duplicate and where it first stands', () => {
    expect(problemsOf('dup.yaml', 'graphs:\n  g:\n    nodes: [plan, answer, plan]\n    runs: [{ steps: [{ node: plan }] }]\n')).toEqual([
      `${path.join(dir, 'dup.yaml')}:3:27: graphs.g.nodes[2]: "plan" is listed twice (also at [0]); list each once`,
    ]);
  });

  it('gives the line and column of a syntax error, in YAML and in JSON', () => {
    expect(problemsOf('cut.yaml', 'graphs:\n  g:\n    nodes: [plan\n')).toEqual([
      expect.stringMatching(new RegExp(`^${literally(path.join(dir, 'cut.yaml'))}:4:1: not valid YAML: Flow sequence`)),
    ]);
    expect(problemsOf('cut.json', '{"graphs": {\n  "a": {"replies": [{"text": "x"}]}')).toEqual([
      `${path.join(dir, 'cut.json')}:2:36: not valid JSON: Expected ',' or '}' after property value`,
    ]);
  });

  it('gives the line of a schema problem in a JSON file too', () => {
    expect(problemsOf('bad.json', '{\n  "graphs": {\n    "a": {\n      "replies": [{"txt": "x"}]\n    }\n  }\n}\n')).toEqual([
      `${path.join(dir, 'bad.json')}:4:20: graphs.a.replies[0].txt: unknown key; did you mean text? allowed here: match, text, tool_calls, update, interrupt, error`,
    ]);
  });

  it('gives the line of what the schema cannot say, under keys that hold dots', () => {
    const lines = problemsOf(
      'goto.yaml',
      'graphs:\n  v1.planner:\n    runs:\n      - steps:\n          - node: plan\n            goto: ansewr\n          - node: answer\n',
    );
    expect(lines).toEqual([
      `${path.join(dir, 'goto.yaml')}:6:13: graphs.v1.planner.runs[0].steps[0].goto: ansewr is not a node of this graph; go to one of plan, answer, __end__`,
    ]);
  });
});

describe('mistakes refused at start-up', () => {
  const refusal = (graphs: unknown) => {
    try {
      checkConfig({ graphs });
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };

  it('a Command to a node the graph does not have, in the graph or in a subgraph', () => {
    expect(refusal({ g: { nodes: ['a', 'b'], runs: [{ steps: [{ node: 'a', goto: 'c' }, { node: 'b' }] }] } })).toContain(
      'graphs.g.runs[0].steps[0].goto: c is not a node of this graph; go to one of a, b, __end__',
    );
    expect(refusal({ g: { runs: [{ steps: [{ node: 'outer', subgraph: [{ node: 'inner', goto: 'outer' }] }] }] } })).toContain(
      'graphs.g.runs[0].steps[0].subgraph[0].goto: outer is not a node of subgraph outer; go to one of inner, __end__',
    );
    expect(refusal({ g: { runs: [{ steps: [{ node: 'a', goto: ['b', '__end__'] }, { node: 'b' }] }] } })).toBe('accepted');
  });

  it('a tool call no answer is given for, in the shorthand and in steps', () => {
    expect(refusal({ g: { replies: [{ text: 'x', tool_calls: [{ name: 'lookup' }] }], tools: { other: 'y' } } })).toContain(
      'graphs.g.replies[0]: tool_calls[0].name: no answer for tool lookup',
    );
    const steps = (tools: unknown) => ({
      g: {
        runs: [
          {
            steps: [
              { node: 'agent', message: { tool_calls: [{ name: 'lookup' }, { name: 'weather' }] } },
              { node: 'tools', tools },
            ],
          },
        ],
      },
    });
    expect(refusal(steps({ lookup: 'a' }))).toContain(
      'graphs.g.runs[0].steps[1].tools: no answer for tool weather, which graphs.g.runs[0].steps[0].message calls',
    );
    expect(refusal(steps(['a']))).toContain('graphs.g.runs[0].steps[1].tools: 1 answer(s) for the 2 tool calls');
    expect(refusal(steps({ lookup: 'a', weather: 'b' }))).toBe('accepted');
    expect(refusal(steps(['a', 'b']))).toBe('accepted');
  });

  it('an AI message after tool calls that nothing answered; a run may end with calls the client answers', () => {
    const agent = { node: 'agent', message: { text: 'looking', tool_calls: [{ name: 'lookup' }] } };
    expect(refusal({ g: { runs: [{ steps: [agent, { node: 'agent', message: { text: 'done' } }] }] } })).toContain(
      'graphs.g.runs[0].steps[1].message: an AI message follows the tool calls of graphs.g.runs[0].steps[0].message (lookup) before a step answers them',
    );
    expect(refusal({ g: { runs: [{ steps: [agent] }] } })).toBe('accepted');
    // A plain function as tool node writes the ToolMessages itself.
    const answered = { node: 'tool', update: { messages: [{ type: 'tool', content: '7', tool_call_id: 'call_1' }] } };
    expect(refusal({ g: { runs: [{ steps: [agent, answered, { node: 'agent', message: { text: 'done' } }] }] } })).toBe('accepted');
  });
});

describe('in process', () => {
  it('checks graphs as a file is checked: a typo and a wrong type are refused with the same lines', () => {
    expect(() => createEmulator({ graphs: { g: { runs: [{ steps: [{ node: 'a', mesage: { text: 'x' } }] }] } } as never })).toThrow(
      'the graphs option is invalid:\n  graphs.g.runs[0].steps[0].mesage: unknown key; did you mean message?',
    );
    expect(() => createEmulator({ graphs: { g: { runs: [{ steps: [{ node: 'a', custom: { stage: 1 } }] }] } } as never })).toThrow(
      'graphs.g.runs[0].steps[0].custom: {"stage":1} is not a list',
    );
  });

  it('checks a config object that was not read from a file, and still takes reply functions', () => {
    expect(() => createEmulator({ config: { tenants: [{ id: 't', api_keys: [] }] } as never })).toThrow(
      'the config option is invalid:\n  tenants[0].api_keys: is empty; list at least 1',
    );
    const emulator = createEmulator({ graphs: { g: { replies: [() => ({ text: 'hi' })] } } });
    emulator.close();
  });

  it('reports no database error after refusing (nothing was opened)', () => {
    const errors: string[] = [];
    expect(() => createEmulator({ onError: (message) => errors.push(message), graphs: { g: {} } as never })).toThrow(ConfigError);
    expect(errors).toEqual([]);
  });
});

function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
