// The routers a recording writes (src/recorder/recorded-routes.ts): from a drawing's conditional
// edges and where the graph went after their node, the one simple condition that explains every
// observation, or none.
import { describe, expect, it } from 'vitest';
import { edgesWithRoutes } from '../src/recorder/recorded-routes.js';
import type { RouteObservation } from '../src/recorder/thread-runs.js';

const drawing = (from: string, targets: string[], fixed: [string, string][] = []) => ({
  edges: [
    { source: '__start__', target: from, conditional: false },
    ...fixed.map(([source, target]) => ({ source, target, conditional: false })),
    ...targets.map((target) => ({ source: from, target, conditional: true })),
  ],
});
const ai = (content: string, calls = 0) => ({
  type: 'ai',
  content,
  tool_calls: Array.from({ length: calls }, (_, i) => ({ name: 'lookup', args: {}, id: `c${i}` })),
});
const seen = (node: string, values: Record<string, unknown>, next: string[]): RouteObservation => ({ node, values, next });

describe('the routers a recording writes', () => {
  it('reads a router on tool calls, as tools_condition routes', () => {
    const edges = edgesWithRoutes(
      drawing('agent', ['tool', '__end__'], [['tool', 'agent']]),
      [seen('agent', { messages: [ai('Looking.', 1)] }, ['tool']), seen('agent', { messages: [ai('Done.')] }, [])],
      ['messages'],
    );
    expect(edges).toEqual([
      { from: '__start__', to: 'agent' },
      { from: 'tool', to: 'agent' },
      { from: 'agent', to: ['tool', '__end__'], conditional: true, routes: [{ tool_calls: true, to: 'tool' }, { to: '__end__' }] },
    ]);
  });

  it('reads a router on a state key, the target most values go to as its default', () => {
    const [, edge] = edgesWithRoutes(
      drawing('classify', ['forecast', 'chat']),
      [
        seen('classify', { messages: [], topic: 'weather' }, ['forecast']),
        seen('classify', { messages: [], topic: 'other' }, ['chat']),
        seen('classify', { messages: [], topic: 'jokes' }, ['chat']),
      ],
      ['messages', 'topic'],
    );
    expect(edge).toEqual({
      from: 'classify',
      to: ['forecast', 'chat'],
      conditional: true,
      routes: [{ value: '{{state.topic}}', equals: 'weather', to: 'forecast' }, { to: 'chat' }],
    });
  });

  it('reads a router on the last message when no key explains it', () => {
    const [, edge] = edgesWithRoutes(
      drawing('agent', ['tool', '__end__']),
      [seen('agent', { messages: [ai('begin')] }, ['tool']), seen('agent', { messages: [ai('end')] }, [])],
      ['messages'],
    );
    expect(edge).toMatchObject({ routes: [{ value: '{{last.message.content}}', equals: 'end', to: '__end__' }, { to: 'tool' }] });
  });

  it('writes none when the graph went one way only, or one value went two ways', () => {
    const once = edgesWithRoutes(
      drawing('agent', ['tool', '__end__']),
      [seen('agent', { messages: [ai('x', 1)] }, ['tool'])],
      ['messages'],
    );
    expect(once[1]).toEqual({ from: 'agent', to: ['tool', '__end__'], conditional: true });
    const twoWays = edgesWithRoutes(
      drawing('agent', ['tool', '__end__']),
      [seen('agent', { messages: [ai('same')] }, ['tool']), seen('agent', { messages: [ai('same')] }, [])],
      ['messages'],
    );
    expect(twoWays[1]).toEqual({ from: 'agent', to: ['tool', '__end__'], conditional: true });
  });
});
