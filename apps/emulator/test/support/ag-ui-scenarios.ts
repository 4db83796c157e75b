// CopilotKit's way to a LangGraph deployment: the AG-UI LangGraph adapter (`LangGraphAgent` of
// `@ag-ui/langgraph`, from npm, unmodified), driven as CopilotKit's runtime drives it
// (`runAgent` with a subscriber, the conversation kept on the agent), as scenarios that run the
// same on any server running RUN_GRAPHS: a plain reply and a second run on the thread, the tool
// loop with its state snapshots, an interrupt resumed in both of the adapter's forms, a run whose
// model fails, and a cancelled run.
//
// Each scenario holds what a CopilotKit app relies on (the AG-UI event sequence is well formed, by
// the client's own verifier; the texts, tool calls, interrupts and state the app shows) and
// returns what it observed, which the differential test compares between the emulator and the
// real LangGraph JS server. The adapter itself breaks the AG-UI sequence after a RUN_ERROR and
// after a cancel, on any server (it goes on emitting the run's end): there `runAgent` rejects,
// and the scenario holds the events the subscriber saw before it did.
import { randomUUID } from 'node:crypto';
import type { BaseEvent, Message, RunAgentParameters } from '@ag-ui/client';
import { verifyEvents } from '@ag-ui/client';
import { LangGraphAgent } from '@ag-ui/langgraph';
import { from, lastValueFrom, toArray } from 'rxjs';
import { expect, vi } from 'vitest';
import type { Scenario } from './langgraph-scenarios.js';

type Event = BaseEvent & Record<string, any>;

/** One `runAgent` call: every event its subscriber saw, and how the call ended. */
interface AgentRun {
  events: Event[];
  /** `resolved`, or the adapter's complaint when the call rejected. */
  outcome: string;
}

const userMessage = (content: string): Message => ({ id: randomUUID(), role: 'user', content });

const agentOn = (url: string, graphId: string, options: Partial<ConstructorParameters<typeof LangGraphAgent>[0]> = {}) =>
  new LangGraphAgent({ deploymentUrl: url, graphId, ...options });

let quietRuns = 0;
let restoreConsole: (() => void) | undefined;

/**
 * Keeps the adapter's own logging out of the test's output while a run is on (on both servers at
 * once): it logs the error of a call that rejects before rejecting, and warns that the legacy
 * resume form is deprecated. The rejection is the outcome; the resume form is what CopilotKit sends.
 */
function quietConsole(): () => void {
  if (quietRuns++ === 0) {
    const spies = [vi.spyOn(console, 'error').mockImplementation(() => {}), vi.spyOn(console, 'warn').mockImplementation(() => {})];
    restoreConsole = () => {
      for (const spy of spies) spy.mockRestore();
    };
  }
  return () => {
    if (--quietRuns === 0) restoreConsole?.();
  };
}

/** Runs the agent once, as CopilotKit's runtime does. */
async function runAgent(agent: LangGraphAgent, parameters: RunAgentParameters = {}, onEvent?: (event: Event) => void): Promise<AgentRun> {
  const events: Event[] = [];
  const loud = quietConsole();
  try {
    await agent.runAgent(parameters, {
      onEvent: ({ event }) => {
        events.push(event as Event);
        onEvent?.(event as Event);
      },
    });
    return { events, outcome: 'resolved' };
  } catch (error) {
    return { events, outcome: (error as Error).message };
  } finally {
    loud();
  }
}

/** The AG-UI client's own verdict on a sequence: `well formed`, or the first rule it breaks. */
async function verdictOf(events: Event[]): Promise<string> {
  try {
    await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
    return 'well formed';
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * A run as the comparison sees it: each event by its type and what an app reads of it, RAW events
 * (LangGraph's own events, passed through; the stream tests compare those) left out, and a run of
 * STATE_SNAPSHOTs as one: the adapter sends one per stream chunk while a node ends, so their
 * number follows how the server interleaves its stream modes, which is its timing. The last
 * snapshot, after the run, is kept whole (its messages as type and text).
 */
function described(run: AgentRun) {
  const sequence: unknown[] = [];
  for (const event of run.events) {
    if (event.type === 'RAW') continue;
    if (event.type === 'STATE_SNAPSHOT' && sequence.at(-1) === 'STATE_SNAPSHOT') continue;
    sequence.push(detailOf(event));
  }
  const snapshots = run.events.filter((event) => event.type === 'STATE_SNAPSHOT');
  return { sequence, lastSnapshot: stateShown(snapshots.at(-1)?.snapshot), outcome: run.outcome };
}

function detailOf(event: Event): unknown {
  switch (event.type) {
    case 'STEP_STARTED':
    case 'STEP_FINISHED':
      return `${event.type} ${event.stepName}`;
    case 'TEXT_MESSAGE_CONTENT':
    case 'TOOL_CALL_ARGS':
      return `${event.type} ${event.delta}`;
    case 'TOOL_CALL_START':
      return `${event.type} ${event.toolCallName}`;
    case 'TOOL_CALL_RESULT':
      return `${event.type} ${event.content}`;
    case 'RUN_ERROR':
      return `${event.type} ${event.message}`;
    case 'CUSTOM':
      return { type: event.type, name: event.name, value: event.value };
    case 'RUN_FINISHED':
      return event.outcome ? { type: event.type, outcome: event.outcome } : event.type;
    case 'MESSAGES_SNAPSHOT':
      return { type: event.type, messages: (event.messages as Message[]).map(messageShown) };
    default:
      return event.type;
  }
}

/** A message as the app shows it: role, text, and the tool calls it makes or answers. */
function messageShown(message: Message): unknown {
  const shown: Record<string, unknown> = { role: message.role, content: message.content };
  if ('toolCalls' in message && message.toolCalls?.length)
    shown.toolCalls = message.toolCalls.map((call) => `${call.function.name}(${call.function.arguments})`);
  if ('toolCallId' in message) shown.answers = message.toolCallId;
  return shown;
}

/** A state as the app shows it, its messages as type and text (the tool message's metadata is the server's own). */
function stateShown(state: Record<string, any> | undefined): unknown {
  if (!state) return state;
  const messages = (state.messages ?? []) as { type: string; content: unknown }[];
  return { ...state, messages: messages.map((m) => `${m.type}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`) };
}

const texts = (run: AgentRun) =>
  run.events
    .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
    .map((event) => event.delta)
    .join('');
/** The event types of a run, without RAW and STATE_SNAPSHOT, a run of one type as one. */
const types = (run: AgentRun) =>
  run.events
    .map((event) => event.type)
    .filter((type) => type !== 'RAW' && type !== 'STATE_SNAPSHOT')
    .filter((type, i, all) => type !== all[i - 1]);

/** Polls the server until the run on the agent's thread has ended; answers the runs' statuses. */
async function settledRuns(url: string, threadId: string): Promise<string[]> {
  for (let waited = 0; waited < 20_000; waited += 100) {
    const runs = (await (await fetch(`${url}/threads/${threadId}/runs`)).json()) as { status: string }[];
    if (runs.every((run) => run.status !== 'pending' && run.status !== 'running')) return runs.map((run) => run.status);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the runs of thread ${threadId} did not end within 20 s`);
}

const RESOLVED = 'resolved';

/** Each a Scenario as the other differential scenarios are; only the server's URL is used. */
export const AG_UI_SCENARIOS: Record<string, Scenario> = {
  'a plain reply, then a second run on the thread': async (_client, _tag, url) => {
    const agent = agentOn(url, 'support');
    agent.addMessage(userMessage('hello there'));
    const first = await runAgent(agent);
    agent.addMessage(userMessage('and again'));
    // As CopilotKit's runtime runs it: its agent asks for subgraphs' events too.
    const second = await runAgent(agent, { forwardedProps: { streamSubgraphs: true } });
    for (const run of [first, second]) {
      expect(run.outcome).toBe(RESOLVED);
      expect(await verdictOf(run.events)).toBe('well formed');
      expect(types(run)).toEqual([
        'RUN_STARTED',
        'STEP_STARTED',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'STEP_FINISHED',
        'MESSAGES_SNAPSHOT',
        'RUN_FINISHED',
      ]);
    }
    expect([texts(first), texts(second)]).toEqual(['You said: hello there', 'You said: and again']);
    expect(agent.messages.map((m) => `${m.role}: ${m.content}`)).toEqual([
      'user: hello there',
      'assistant: You said: hello there',
      'user: and again',
      'assistant: You said: and again',
    ]);
    return { runs: [first, second].map(described), messages: agent.messages.map(messageShown), state: stateShown(agent.state) };
  },

  'the tool loop, and the state it writes': async (_client, _tag, url) => {
    // The app's own state goes in with the first run; the graph's reply writes `topic`.
    const agent = agentOn(url, 'support', { initialState: { topic: 'from the app' } });
    agent.addMessage(userMessage('where is my order?'));
    const run = await runAgent(agent);
    expect(run.outcome).toBe(RESOLVED);
    expect(await verdictOf(run.events)).toBe('well formed');
    const tool = run.events.filter((event) => event.type.startsWith('TOOL_CALL_'));
    expect(tool.map((event) => event.type)).toEqual(['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT']);
    expect(tool[0]).toMatchObject({ toolCallName: 'lookup_order' });
    expect(JSON.parse(tool[1]!.delta)).toEqual({ order_id: '4512' });
    expect(tool[3]).toMatchObject({ content: '{"status": "shipped"}' });
    // The tool's answer sits between the call and the reply, as the thread holds it.
    expect(agent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(agent.messages.at(-1)?.content).toBe('It shipped yesterday.');
    const topics = run.events.filter((event) => event.type === 'STATE_SNAPSHOT').map((event) => event.snapshot.topic);
    expect(topics).toContain('from the app');
    expect(topics.at(-1)).toBe('shipping');
    expect(agent.state.topic).toBe('shipping');
    return { run: described(run), messages: agent.messages.map(messageShown), state: stateShown(agent.state) };
  },

  // What CopilotKit's useLangGraphInterrupt sends: `forwardedProps.command.resume`.
  'an interrupt, resumed by a command': async (_client, _tag, url) => {
    const agent = agentOn(url, 'support');
    agent.addMessage(userMessage('I want a refund'));
    const paused = await runAgent(agent);
    expect(paused.outcome).toBe(RESOLVED);
    expect(await verdictOf(paused.events)).toBe('well formed');
    const announced = paused.events.filter((event) => event.type === 'CUSTOM');
    expect(announced.map((event) => [event.name, JSON.parse(event.value)])).toEqual([['on_interrupt', { question: 'Refund $20?' }]]);
    const resumed = await runAgent(agent, { forwardedProps: { command: { resume: 'approved' } } });
    expect(resumed.outcome).toBe(RESOLVED);
    expect(await verdictOf(resumed.events)).toBe('well formed');
    expect(texts(resumed)).toBe('Refund sent (approved).');
    expect(agent.state.topic).toBe('refund');
    return { runs: [paused, resumed].map(described), messages: agent.messages.map(messageShown), state: stateShown(agent.state) };
  },

  // AG-UI's own form: the interrupt as the run's outcome, answered by `resume` entries.
  'an interrupt as the run outcome, resumed by its id': async (_client, _tag, url) => {
    const agent = agentOn(url, 'support', { emitInterruptOutcome: true });
    agent.addMessage(userMessage('I want a refund'));
    const paused = await runAgent(agent);
    expect(paused.outcome).toBe(RESOLVED);
    expect(await verdictOf(paused.events)).toBe('well formed');
    const finished = paused.events.at(-1)!;
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    const pending = agent.pendingInterrupts.map((interrupt) => interrupt.id);
    expect(pending).toHaveLength(1);
    expect(finished.outcome.interrupts.map((interrupt: { id: string }) => interrupt.id)).toEqual(pending);
    const resumed = await runAgent(agent, {
      resume: pending.map((interruptId) => ({ interruptId, status: 'resolved' as const, payload: 'approved' })),
    });
    expect(resumed.outcome).toBe(RESOLVED);
    expect(await verdictOf(resumed.events)).toBe('well formed');
    expect(texts(resumed)).toBe('Refund sent (approved).');
    expect(agent.pendingInterrupts).toEqual([]);
    return { runs: [paused, resumed].map(described), messages: agent.messages.map(messageShown) };
  },

  'a run whose model fails': async (_client, _tag, url) => {
    const agent = agentOn(url, 'support');
    agent.addMessage(userMessage('please fail'));
    const run = await runAgent(agent);
    // The subscriber sees the error end the run; the adapter then emits the step's end, which its
    // own verifier refuses, so runAgent rejects.
    expect(run.events.filter((event) => event.type !== 'RAW').at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      message: 'Model provider rate limit',
    });
    expect(await verdictOf(run.events)).toBe('well formed');
    expect(run.outcome).toMatch(/^Cannot send event type 'STEP_FINISHED': The run has already errored with 'RUN_ERROR'/);
    return { run: described(run) };
  },

  'a run cancelled while it streams': async (_client, _tag, url) => {
    const agent = agentOn(url, 'slow');
    agent.addMessage(userMessage('count for me'));
    let aborted = false;
    // CopilotKit's stop button: abortRun() once the reply has begun.
    const run = await runAgent(agent, {}, (event) => {
      if (!aborted && event.type === 'TEXT_MESSAGE_CONTENT') {
        aborted = true;
        agent.abortRun();
      }
    });
    expect(texts(run)).toBe('one');
    expect(await verdictOf(run.events)).toBe('well formed');
    // The adapter ends the run with its text message still open, which its own verifier refuses.
    expect(run.outcome).toMatch(/^Cannot send 'RUN_FINISHED' while text messages are still active/);
    // The server cancelled the run: it ends interrupted, the thread free for the next.
    expect(await settledRuns(url, agent.threadId)).toEqual(['interrupted']);
    const thread = (await (await fetch(`${url}/threads/${agent.threadId}`)).json()) as { status: string };
    expect(thread.status).toBe('idle');
    return { run: described(run) };
  },
};
