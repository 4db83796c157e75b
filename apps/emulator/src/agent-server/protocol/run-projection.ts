// One run, told as the protocol's events (decision A26): what the run engine and its graph report
// as it happens (runs/run-observer.ts) becomes events of the run's thread, in the order the run
// makes them, in the namespaces and shapes of the protocol's types:
//
// - lifecycle: the root is `running` when the run starts and ends `completed`, `interrupted` (it
//   waits at an interrupt or a breakpoint, or was cancelled) or `failed` (with the error's
//   message); a namespace below it (a subgraph node's, or the task of a node whose model or tools
//   stream) is `started` right before its first event and ends with its task: `completed`,
//   `interrupted` (it stopped at an interrupt) or `failed`;
// - values and checkpoints: after each step, the checkpoint by reference, then the state (a step
//   that wrote no state key sends only its checkpoint); a run that goes on without input first
//   sends where it goes on from;
// - updates and tasks: each node's writes, its task's start and end;
// - messages: each model reply as a message of content blocks, its text block first (its deltas
//   as the chunks come), then a block per tool call; a message a node returns whole (an AI
//   message) as one block; human and tool messages are the state's, not streamed;
// - tools: each tool call a tool node runs, its start and its answer;
// - input: `input.requested` per interrupt the run stops at (in the namespace of the graph that
//   raised it, once), `input.answered` first when the run resumes interrupts;
// - custom: what nodes write to the stream.
import type { Interrupt } from '@agentplane/agent-server';
import type { RunEnding, RunObserver } from '../runs/run-observer.js';
import type { NodeCall, WrittenCheckpoint } from '../runs/stream-modes.js';
import { namespaceOf } from '../runs/stream-modes.js';
import { compactMessage, compactValues } from './compact-values.js';
import type { EventDraft } from './thread-events.js';

type Values = Record<string, unknown>;

/** Where a run's events go: its thread's log. */
export type AppendEvent = (draft: EventDraft, namesRun?: boolean) => void;

/** A message being streamed: where, and how far its text block got. */
interface OpenMessage {
  namespace: string[];
  node: string;
  /** Whether its text block started (it starts with the first text). */
  textStarted: boolean;
  text: string;
}

export class RunProjection implements RunObserver {
  /** The namespaces below the root that started and have not ended, by key. */
  private readonly open = new Map<string, string[]>();
  /** Interrupts already requested in this run (an interrupt inside a subgraph is reported at each level). */
  private readonly requested = new Set<string>();
  private readonly messages = new Map<string, OpenMessage>();

  constructor(
    private readonly append: AppendEvent,
    /** The root's graph name (its graph's ID). */
    private readonly graphName: string,
    /** The interrupts the run resumes, told first (`input.answered`). */
    private readonly answers: readonly string[],
    /** Whether its root `running` was told already, when the command that made it was answered. */
    private readonly announced = false,
  ) {}

  runStarted(): void {
    if (!this.announced) this.append({ method: 'lifecycle', namespace: [], data: { event: 'running', graph_name: this.graphName } }, true);
    if (this.answers.length > 0) this.append({ method: 'input.answered', namespace: [], data: { interrupt_ids: [...this.answers] } });
  }

  runEnded(ending: RunEnding): void {
    const status = ending.status === 'error' ? 'failed' : ending.status === 'cancelled' || ending.interrupts ? 'interrupted' : 'completed';
    // What was cut short ends as the run did.
    for (const namespace of [...this.open.values()].reverse()) this.end(namespace, status === 'failed' ? 'failed' : 'interrupted');
    this.append(
      {
        method: 'lifecycle',
        namespace: [],
        data: {
          event: status,
          graph_name: this.graphName,
          ...(ending.status === 'error' ? { error: ending.error.message } : {}),
        },
      },
      true,
    );
  }

  nodeStarted(call: NodeCall, input: Values): void {
    this.append({
      method: 'tasks',
      namespace: call.ns,
      data: { id: call.taskId, name: call.node, input: compactValues(input), triggers: [`branch:to:${call.node}`], interrupts: [] },
    });
  }

  nodeEnded(call: NodeCall, written: Values): void {
    const values = compactValues(written);
    this.append({ method: 'updates', namespace: call.ns, data: { node: call.node, values } });
    this.append({ method: 'tasks', namespace: call.ns, data: { id: call.taskId, name: call.node, result: values, interrupts: [] } });
    this.end(namespaceOf(call), 'completed');
  }

  taskStopped(call: NodeCall, interrupts: Interrupt[]): void {
    this.append({ method: 'tasks', namespace: call.ns, data: { id: call.taskId, name: call.node, result: {}, interrupts } });
    this.end(namespaceOf(call), interrupts.length > 0 ? 'interrupted' : 'failed');
  }

  subgraphStarted(call: NodeCall): void {
    this.start(call);
  }

  subgraphEnded(): void {
    // The subgraph node's task ends right after, and with it the namespace (nodeEnded).
  }

  modelChunk(call: NodeCall, chunk: Values): void {
    const id = chunk.id as string;
    let message = this.messages.get(id);
    if (!message) {
      const namespace = this.start(call);
      message = { namespace, node: call.node, textStarted: false, text: '' };
      this.messages.set(id, message);
      this.messageEvent(message, { event: 'message-start', role: 'ai', id });
    }
    const text = typeof chunk.content === 'string' ? chunk.content : '';
    if (text === '') return;
    if (!message.textStarted) {
      message.textStarted = true;
      this.messageEvent(message, { event: 'content-block-start', index: 0, content: { type: 'text', text: '' } });
    }
    message.text += text;
    this.messageEvent(message, { event: 'content-block-delta', index: 0, delta: { type: 'text-delta', text } });
  }

  modelEnded(call: NodeCall, reply: Values): void {
    const id = reply.id as string;
    const message = this.messages.get(id) ?? { namespace: this.start(call), node: call.node, textStarted: false, text: '' };
    if (!this.messages.has(id)) this.messageEvent(message, { event: 'message-start', role: 'ai', id });
    this.messages.delete(id);
    this.finishMessage(message, reply);
  }

  nodeMessages(call: NodeCall, messages: Values[]): void {
    for (const whole of messages) {
      const type = whole.type ?? whole.role;
      if (type !== 'ai' && type !== 'assistant') continue;
      const message: OpenMessage = { namespace: this.start(call), node: call.node, textStarted: false, text: '' };
      this.messageEvent(message, { event: 'message-start', role: 'ai', id: String(whole.id) });
      const text = textOf(whole.content);
      if (text !== '') {
        message.textStarted = true;
        message.text = text;
        this.messageEvent(message, { event: 'content-block-start', index: 0, content: { type: 'text', text: '' } });
        this.messageEvent(message, { event: 'content-block-delta', index: 0, delta: { type: 'text-delta', text } });
      }
      this.finishMessage(message, whole);
    }
  }

  toolCalled(node: NodeCall, call: { id?: string | null; name: string; args: unknown }, answer: Values): void {
    const namespace = this.start(node);
    const tool_call_id = call.id ?? '';
    const at = { namespace, node: node.node };
    this.append({ method: 'tools', ...at, data: { event: 'tool-started', tool_call_id, tool_name: call.name, input: call.args } });
    this.append({ method: 'tools', ...at, data: { event: 'tool-finished', tool_call_id, output: compactMessage(answer) } });
  }

  customWritten(call: NodeCall, value: unknown): void {
    this.append({ method: 'custom', namespace: call.ns, data: { payload: value } });
  }

  stateWritten(ns: readonly string[], values: Values, wroteState: boolean, checkpoint: WrittenCheckpoint): void {
    this.checkpoint(ns, checkpoint);
    if (wroteState) this.append({ method: 'values', namespace: ns, data: compactValues(values) });
  }

  startedFrom(values: Values, head: WrittenCheckpoint, ns: readonly string[]): void {
    this.checkpoint(ns, head);
    this.append({ method: 'values', namespace: ns, data: compactValues(values) });
  }

  interrupted(ns: readonly string[], interrupts: Interrupt[]): void {
    for (const interrupt of interrupts) {
      if (interrupt.id === undefined || this.requested.has(interrupt.id)) continue;
      this.requested.add(interrupt.id);
      this.append({ method: 'input.requested', namespace: ns, data: { interrupt_id: interrupt.id, payload: interrupt.value } });
    }
  }

  private checkpoint(ns: readonly string[], checkpoint: WrittenCheckpoint): void {
    const { step, source } = checkpoint.metadata;
    this.append({
      method: 'checkpoints',
      namespace: ns,
      data: {
        id: checkpoint.checkpoint_id,
        ...(checkpoint.parent_checkpoint_id ? { parent_id: checkpoint.parent_checkpoint_id } : {}),
        step,
        source,
      },
    });
  }

  /** The namespace of what runs inside a node's task, started (told) once, before its first event. */
  private start(call: NodeCall): string[] {
    const namespace = namespaceOf(call);
    const key = namespace.join('|');
    if (!this.open.has(key)) {
      this.open.set(key, namespace);
      this.append({ method: 'lifecycle', namespace, data: { event: 'started', graph_name: call.node } });
    }
    return namespace;
  }

  /** A started namespace ends (one that never started has nothing to end). */
  private end(namespace: string[], status: 'completed' | 'interrupted' | 'failed'): void {
    const key = namespace.join('|');
    if (!this.open.delete(key)) return;
    const graphName = namespace.at(-1)!.split(':')[0]!;
    this.append({ method: 'lifecycle', namespace, data: { event: status, graph_name: graphName } });
  }

  /** Ends a message: its text block (or an empty one, for a message with neither text nor tool calls), its tool call blocks, its end. */
  private finishMessage(message: OpenMessage, whole: Values): void {
    const calls = (Array.isArray(whole.tool_calls) ? whole.tool_calls : []) as { id?: string | null; name: string; args?: unknown }[];
    if (!message.textStarted && calls.length === 0) {
      message.textStarted = true;
      this.messageEvent(message, { event: 'content-block-start', index: 0, content: { type: 'text', text: '' } });
    }
    if (message.textStarted)
      this.messageEvent(message, { event: 'content-block-finish', index: 0, content: { type: 'text', text: message.text } });
    const first = message.textStarted ? 1 : 0;
    for (const [i, call] of calls.entries()) {
      const index = first + i;
      const id = call.id ?? null;
      const args = call.args ?? {};
      this.messageEvent(message, {
        event: 'content-block-start',
        index,
        content: { type: 'tool_call_chunk', id, name: call.name, args: JSON.stringify(args) },
      });
      this.messageEvent(message, { event: 'content-block-finish', index, content: { type: 'tool_call', id, name: call.name, args } });
    }
    this.messageEvent(message, { event: 'message-finish', reason: calls.length > 0 ? 'tool_use' : 'stop' });
  }

  private messageEvent(message: OpenMessage, data: Values): void {
    this.append({ method: 'messages', namespace: message.namespace, node: message.node, data });
  }
}

/** A message's text: its string content, or its text blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && (part as Values).type === 'text' ? String((part as Values).text ?? '') : ''))
    .join('');
}
