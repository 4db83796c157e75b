// The scripted graphs of the config: how a bad `graphs` entry is refused (readable, one line per
// problem, at start-up), how a model call chooses its reply (the thread cursor, `match`, wrapping,
// reply functions), the templates, and the ReAct shape's edges.
import { describe, expect, it } from 'vitest';
import type { ReplyContext } from '../src/agent-server/graphs/graph-types.js';
import { reactNextAfter as nextAfter } from '../src/agent-server/graphs/react-agent.js';
import { GraphRegistry, ScriptedGraph } from '../src/agent-server/graphs/scripted-graph.js';
import { messageText, renderText as renderReplyText } from '../src/agent-server/graphs/templates.js';
import { checkConfig } from '../src/config/config.js';
import { createEmulator } from '../src/emulator.js';

const call = (input: string, resume?: unknown): ReplyContext => ({ input, state: {}, resume });

describe('the graphs config', () => {
  it('accepts the documented example', () => {
    const config = checkConfig({
      graphs: {
        support: {
          state: { topic: null },
          replies: [
            { match: '*refund*', text: 'I can help with that refund.' },
            { text: 'Let me look up order 4512.', tool_calls: [{ name: 'lookup_order', args: { order_id: '4512' } }] },
            { text: 'It shipped yesterday.', update: { topic: 'shipping' } },
            { interrupt: { question: 'Refund $20?' }, text: 'Refund sent ({{resume}}).' },
            { error: 'Model provider rate limit' },
          ],
          tools: { lookup_order: '{"status": "shipped"}' },
          stream: { chunk: 'word', delay_ms: 0 },
        },
      },
    });
    expect(Object.keys(config.graphs ?? {})).toEqual(['support']);
  });

  it('refuses what a graph cannot run, one readable line per problem', () => {
    const refused = () =>
      checkConfig({
        graphs: {
          'not a graph id': { replies: [{ text: 'hi' }] },
          '3b7e9f1a-2c4d-4e6f-8a0b-1c2d3e4f5a6b': { replies: [{ text: 'hi' }] },
          support: {
            state: { messages: [], topic: null },
            replies: [
              { match: '*x*' },
              { error: 'boom', text: 'and words' },
              { error: 'boom', update: { topic: 'x' } },
              { text: 'ok', update: { mood: 'happy', messages: [] } },
            ],
          },
        },
      });
    expect(refused).toThrow(
      [
        'config is invalid:',
        '  graphs.not a graph id: a graph id is 1 to 64 letters, digits, "_", "-" or "." (not starting with "-" or ".")',
        '  graphs.3b7e9f1a-2c4d-4e6f-8a0b-1c2d3e4f5a6b: a graph id cannot be a UUID (assistant ids are UUIDs, and either names a graph)',
        '  graphs.support.state.messages: messages is always in the state (default []); remove it',
        '  graphs.support.replies[0]: a reply needs text, tool_calls, interrupt or error',
        '  graphs.support.replies[1]: error cannot be combined with text: a reply that raises says nothing',
        '  graphs.support.replies[2]: error cannot be combined with update: a node that raises writes nothing',
        "  graphs.support.replies[3]: update.mood: not a key of this graph's state (declare it under state)",
        '  graphs.support.replies[3]: update.messages: the reply is the message the node writes; update writes the other keys',
      ].join('\n'),
    );
  });

  it('refuses graph ids a path under /assistants/ would not reach: search and count', () => {
    expect(() => checkConfig({ graphs: { search: { replies: [{ text: 'hi' }] }, count: { replies: [{ text: 'hi' }] } } })).toThrow(
      [
        'config is invalid:',
        '  graphs.search: a graph id cannot be search (/assistants/search is another operation, so its default assistant could not be named)',
        '  graphs.count: a graph id cannot be count (/assistants/count is another operation, so its default assistant could not be named)',
      ].join('\n'),
    );
    expect(() => checkConfig({ graphs: { ['x'.repeat(65)]: { replies: [{ text: 'hi' }] } } })).toThrow(/a graph id is 1 to 64 letters/);
    expect(checkConfig({ graphs: { 'search.v2': { replies: [{ text: 'hi' }] } } }).graphs).toHaveProperty('search.v2');
  });

  it('names the field of a schema problem', () => {
    expect(() => checkConfig({ graphs: { support: { replies: [{ text: 'hi', typo: 1 }], stream: { chunk: 'token' } } } })).toThrow(
      /graphs\.support\.replies\[0\]\.typo: unknown key; allowed here: match, text, tool_calls, update, interrupt, error[\s\S]*graphs\.support\.stream\.chunk: "token" is not allowed; use one of word, char, whole/,
    );
    expect(() => checkConfig({ graphs: { support: { replies: [] } } })).toThrow(/graphs\.support\.replies: is empty; list at least 1/);
  });

  it('checks graphs given in process too, at creation', () => {
    expect(() => createEmulator({ graphs: { support: { replies: [{ text: 'x', update: { topic: 1 } }] } } })).toThrow(
      /the graphs option is invalid:\n {2}graphs\.support\.replies\[0\]: update\.topic: not a key of this graph's state/,
    );
  });
});

describe('reply choice', () => {
  const graph = new ScriptedGraph('support', {
    replies: [
      { match: '*refund*', text: 'refund' },
      { text: 'first' },
      { match: 'order ?', text: 'order' },
      { match: 'bye', text: 'last' },
    ],
  });

  it('takes the first entry at or after the cursor that matches, and moves the cursor past it', () => {
    expect(graph.replies!.choose(0, call('hello'))).toMatchObject({ index: 1, nextCursor: 2 });
    expect(graph.replies!.choose(2, call('order 7'))).toMatchObject({ index: 2, nextCursor: 3 });
    expect(graph.replies!.choose(3, call('bye'))).toMatchObject({ index: 3, nextCursor: 0 });
    // Wrapping around: after the last entry, the search goes on from the first.
    expect(graph.replies!.choose(3, call('a refund please'))).toMatchObject({ index: 0, nextCursor: 1 });
    expect(graph.replies!.choose(2, call('hello'))).toMatchObject({ index: 1, nextCursor: 2 });
  });

  it('matches the whole text, case-sensitively, with ? as one character (an emoji too)', () => {
    const only = new ScriptedGraph('g', { replies: [{ match: 'order ?', text: 'x' }] });
    expect(only.replies!.choose(0, call('order 7'))).toBeDefined();
    expect(only.replies!.choose(0, call('order 🚀'))).toBeDefined();
    expect(only.replies!.choose(0, call('order 77'))).toBeUndefined();
    expect(only.replies!.choose(0, call('Order 7'))).toBeUndefined();
  });

  it('asks reply functions, which may pass a call on, and checks what they answer', () => {
    const seen: ReplyContext[] = [];
    const functions = new ScriptedGraph('g', {
      state: { topic: null },
      replies: [
        (context) => {
          seen.push(context);
          return context.input === 'pass' ? undefined : { text: `fn: ${context.input}` };
        },
        { text: 'fallback' },
        () => ({ text: 'x', update: { undeclared: 1 } }),
      ],
    });
    expect(functions.replies!.choose(0, { input: 'hi', state: { messages: [] }, resume: 'yes' })?.entry).toEqual({ text: 'fn: hi' });
    expect(seen[0]).toEqual({ input: 'hi', state: { messages: [] }, resume: 'yes' });
    expect(functions.replies!.choose(0, call('pass'))).toMatchObject({ index: 1, entry: { text: 'fallback' } });
    expect(() => functions.replies!.choose(2, call('hi'))).toThrow(
      "reply function 2 of graph g answered an invalid reply: update.undeclared: not a key of this graph's state (declare it under state)",
    );
  });

  it('answers nothing when no entry matches', () => {
    expect(new ScriptedGraph('g', { replies: [{ match: 'x', text: 'x' }] }).replies!.choose(0, call('y'))).toBeUndefined();
  });

  it('fills the templates: the input, and the resume value as text', () => {
    expect(renderReplyText('You said {{input}}; {{resume}}.', { input: 'hi', resume: 'yes' })).toBe('You said hi; yes.');
    expect(renderReplyText('{{resume}}', { input: '', resume: { approved: true } })).toBe('{"approved":true}');
    expect(renderReplyText('{{resume}}|{{other}}', { input: '', resume: undefined })).toBe('|{{other}}');
    expect(renderReplyText('Order {{args.order_id}}: {{args.item.name}}', { args: { order_id: 7, item: { name: 'mug' } } })).toBe(
      'Order 7: mug',
    );
  });

  it("reads a message's text from a string or from its text blocks", () => {
    expect(messageText('plain')).toBe('plain');
    expect(
      messageText([
        { type: 'text', text: 'a ' },
        { type: 'image_url', image_url: 'x' },
        { type: 'text', text: 'b' },
      ]),
    ).toBe('a b');
  });

  it('answers tool calls with the configured text, or "ok"', () => {
    const withTools = new ScriptedGraph('g', { replies: [{ text: 'x' }], tools: { lookup: '{"status": "shipped"}' } });
    expect(withTools.toolAnswer('lookup')).toBe('{"status": "shipped"}');
    expect(withTools.toolAnswer('other')).toBe('ok');
    expect(withTools.toolAnswer('toString')).toBe('ok');
  });
});

describe('the graphs of an emulator', () => {
  it('is one echo graph, agent, when none is configured', () => {
    const registry = new GraphRegistry(undefined);
    expect(registry.ids()).toEqual(['agent']);
    expect(registry.get('agent')?.replies?.choose(0, call('hi'))?.entry).toEqual({ text: '{{input}}' });
    expect(registry.get('agent')?.defaults).toEqual({ messages: [] });
  });

  it('keeps the configured graphs in order, each with its state defaults and streaming', () => {
    const registry = new GraphRegistry({
      support: { state: { topic: null, tier: 'free' }, replies: [{ text: 'x' }], stream: { chunk: 'char', delay_ms: 20 } },
      billing: { replies: [{ text: 'y' }] },
    });
    expect(registry.ids()).toEqual(['support', 'billing']);
    expect(registry.get('support')?.defaults).toEqual({ messages: [], topic: null, tier: 'free' });
    expect(registry.get('support')?.stateKeys).toEqual(['messages', 'topic', 'tier']);
    expect(registry.get('support')?.streaming).toEqual({ chunk: 'char', delayMs: 20 });
    expect(registry.get('billing')?.streaming).toEqual({ chunk: 'word', delayMs: 0 });
    expect(registry.get('agent')).toBeUndefined();
  });
});

describe('the ReAct shape', () => {
  const ai = (toolCalls: unknown[]) => ({
    messages: [
      { type: 'human', content: 'q' },
      { type: 'ai', content: '', tool_calls: toolCalls },
    ],
  });

  it('runs agent after __start__, tools while the reply calls tools, agent after tools', () => {
    expect(nextAfter('__start__', {})).toEqual(['agent']);
    expect(nextAfter('agent', ai([{ name: 'lookup', args: {}, id: 'c1' }]))).toEqual(['tools']);
    expect(nextAfter('agent', ai([]))).toEqual([]);
    expect(nextAfter('agent', { messages: [] })).toEqual([]);
    expect(nextAfter('tools', {})).toEqual(['agent']);
    expect(nextAfter('elsewhere', {})).toEqual([]);
  });
});
