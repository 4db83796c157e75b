// A parent graph one of whose nodes is a compiled subgraph with an interrupt inside it:
//   parent:   START → plan → review (the subgraph) → publish → END
//   review:   START → write_draft → human_review → END
// `write_draft` calls a chat model (its chunks stream from inside the subgraph); `human_review`
// calls `interrupt({ question, draft })`, which pauses the whole run. Resumed with
// `Command({ resume: 'yes' })` (anything else discards), it writes `approved` and a message; the
// parent's `publish` then answers. The subgraph shares `messages`, `draft` and `approved` with the
// parent (the keys a subgraph node reads from and writes back to its parent's state).
import { AIMessage } from '@langchain/core/messages';
import { END, interrupt, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod/v4';
import { scriptedModel } from './model.js';

const fields = { messages: MessagesValue, draft: z.string().optional(), approved: z.boolean().optional() };

const draftModel = scriptedModel('subgraph_interrupt.write_draft', [{ text: 'Draft: {{input}} — ships Friday.' }]);

async function writeDraft(state) {
  const response = await draftModel.invoke(state.messages);
  return { messages: [response], draft: response.text };
}

function humanReview(state) {
  const answer = interrupt({ question: 'Publish this draft?', draft: state.draft });
  const approved = answer === 'yes';
  return {
    approved,
    messages: [new AIMessage(approved ? 'Approved by the reviewer.' : `Rejected by the reviewer (${JSON.stringify(answer)}).`)],
  };
}

const review = new StateGraph(new StateSchema(fields))
  .addNode('write_draft', writeDraft)
  .addNode('human_review', humanReview)
  .addEdge(START, 'write_draft')
  .addEdge('write_draft', 'human_review')
  .addEdge('human_review', END)
  .compile();

const plan = () => ({ messages: [new AIMessage('Plan: draft the announcement, then ask for review.')] });

const publish = (state) => ({ messages: [new AIMessage(state.approved ? `Published: ${state.draft}` : 'Not published.')] });

export const graph = new StateGraph(new StateSchema(fields))
  .addNode('plan', plan)
  .addNode('review', review)
  .addNode('publish', publish)
  .addEdge(START, 'plan')
  .addEdge('plan', 'review')
  .addEdge('review', 'publish')
  .addEdge('publish', END)
  .compile();
