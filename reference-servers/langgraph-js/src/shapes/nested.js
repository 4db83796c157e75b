// A subgraph inside a subgraph, each level with a node of its own before it:
//   outer:  START → intake → department (a subgraph) → END
//   department:  START → triage → team (a subgraph) → END
//   team:   START → assign → resolve → END
// Every node adds an AI message saying where it ran, so the conversation shows the path through
// the three levels; each level shares `messages` (whose reducer merges by ID: what a subgraph
// returns to its parent is not added twice).
import { AIMessage } from '@langchain/core/messages';
import { END, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';

const fields = { messages: MessagesValue };

const step = (where) => () => ({ messages: [new AIMessage(`${where} took it`)] });

const team = new StateGraph(new StateSchema(fields))
  .addNode('assign', step('team: assign'))
  .addNode('resolve', step('team: resolve'))
  .addEdge(START, 'assign')
  .addEdge('assign', 'resolve')
  .addEdge('resolve', END)
  .compile();

const department = new StateGraph(new StateSchema(fields))
  .addNode('triage', step('department: triage'))
  .addNode('team', team)
  .addEdge(START, 'triage')
  .addEdge('triage', 'team')
  .addEdge('team', END)
  .compile();

export const graph = new StateGraph(new StateSchema(fields))
  .addNode('intake', step('intake'))
  .addNode('department', department)
  .addEdge(START, 'intake')
  .addEdge('intake', 'department')
  .addEdge('department', END)
  .compile();
