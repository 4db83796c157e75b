// The conformance script: a scripted graph, in the emulator's `graphs` config format, whose replies
// the run checks that need a particular behaviour of the graph rely on (a tool call, a node that
// raises, an interrupt). A server that runs it under some graph id, passed as `scriptedGraphId`
// (`--scripted-graph-id`), gets those checks too; every other run check works with any graph that
// answers a human message.
//
// Replies are chosen by the text of the last human message: `tool: …` calls the `lookup` tool and
// then answers, `fail: …` raises, `ask: …` interrupts and answers the resume value; anything else
// is echoed. The checks that use it start each conversation on a new thread, where the script's
// cursor is at its first entry.

/** The graph id the script is served under by the emulator and reference configurations of this package's tests and docs. */
export const CONFORMANCE_GRAPH_ID = 'agentplane-conformance';

const LOOKUP = { name: 'lookup', args: { order_id: '4512' } };
const TOOL_CALL = { match: 'tool: *', text: 'Looking it up.', tool_calls: [LOOKUP] };
const AFTER_TOOL = { match: 'tool: *', text: 'Found it.' };
const FAILURE = { match: 'fail: *', error: 'Scripted failure' };
const QUESTION = { match: 'ask: *', interrupt: { question: 'Go ahead?' }, text: 'Resumed with {{resume}}.' };
const ECHO = { text: 'You said: {{input}}' };
const TOOL_ANSWER = '{"found": true}';

export const CONFORMANCE_GRAPH = {
  replies: [TOOL_CALL, AFTER_TOOL, FAILURE, QUESTION, ECHO],
  tools: { [LOOKUP.name]: TOOL_ANSWER },
};

/** What the checks expect of each scripted behaviour, read from the script. */
export const SCRIPTED = {
  toolCall: { text: TOOL_CALL.text, ...LOOKUP },
  toolAnswer: TOOL_ANSWER,
  afterTool: AFTER_TOOL.text,
  error: FAILURE.error,
  interrupt: QUESTION.interrupt,
  resumed: (resume: string) => QUESTION.text.replace('{{resume}}', resume),
  echo: (input: string) => ECHO.text.replace('{{input}}', input),
};
