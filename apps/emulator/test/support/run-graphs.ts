// The scripted conversation the run and stream tests hold with the emulator: a refund that waits
// for approval (an interrupt), an order looked up by a tool call and then answered, a model that
// fails, and an echo for everything else; and a graph with a subgraph that asks a question. One
// definition of each, so the suites that use them test the same graph.
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

/** A plan step, then a subgraph node (`review`) whose own node asks a question, then a publish step. */
export const REVIEW_GRAPH: GraphDefinition = {
  channels: { messages: { reducer: 'messages', default: [] }, draft: {}, approved: {} },
  runs: [
    {
      steps: [
        { node: 'plan', message: { text: 'Plan.' } },
        {
          node: 'review',
          subgraph: [
            { node: 'write_draft', update: { draft: 'Draft: ships Friday.' } },
            { node: 'human_review', interrupt: { question: 'Publish?' }, update: { approved: '{{resume}}' } },
          ],
        },
        { node: 'publish', message: { text: 'Published ({{input}}).' } },
      ],
    },
  ],
};
