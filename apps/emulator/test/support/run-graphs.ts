// The scripted conversation the run and stream tests hold with the emulator: a refund that waits
// for approval (an interrupt), an order looked up by a tool call and then answered, a model that
// fails, and an echo for everything else. One definition, so both suites test the same graph.
import type { GraphDefinition } from '../../src/agent-server/graphs/graph-types.js';

export const SUPPORT_GRAPH: GraphDefinition = {
  state: { topic: null },
  replies: [
    { match: '*refund*', interrupt: { question: 'Refund $20?' }, text: 'Refund sent ({{resume}}).' },
    { match: '*order*', text: 'Let me look up order 4512.', tool_calls: [{ name: 'lookup_order', args: { order_id: '4512' } }] },
    { match: '*order*', text: 'It shipped yesterday.', update: { topic: 'shipping' } },
    { match: '*fail*', error: 'Model provider rate limit' },
    { text: 'You said: {{input}}' },
  ],
  tools: { lookup_order: '{"status": "shipped"}' },
};

/** A run's input: one human message. */
export const ask = (content: string) => ({ messages: [{ type: 'human' as const, content }] });
