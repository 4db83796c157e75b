// What a run does, told as it happens to an observer beside its stream modes: the room that
// serves the thread-centric protocol (protocol/) turns it into its own events. The run engine
// asks for an observer of each run it executes (`RunEngineParts.observe`); the stream modes
// forward every happening to it, whatever modes the run streams, so a run that no client streams
// is told all the same. The run engine tells how the run started and ended.
import type { Interrupt } from '@agentplane/agent-server';

type Values = Record<string, unknown>;

/** A checkpoint as the runner committed it. */
export interface WrittenCheckpoint {
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  created_at: string;
  values: Values;
  metadata: Values;
  next: string[];
  tasks: { id: string; name: string; path?: unknown[]; interrupts?: unknown[]; checkpoint?: unknown; result?: unknown }[];
}

/** Where a node runs: the namespace of its graph (empty at the root), its step there, and its task's ID. */
export interface NodeCall {
  ns: readonly string[];
  node: string;
  step: number;
  taskId: string;
  /** The run ID of the node's chain (its events, and the IDs of the messages it makes while messages stream). */
  runId: string;
}

/** How a run ended: its graph finished, stopped at interrupts (none at a breakpoint), failed, or was cancelled. */
export type RunEnding =
  | { status: 'success'; interrupts?: Interrupt[] }
  | { status: 'error'; error: { error: string; message: string } }
  | { status: 'cancelled' };

export interface RunObserver {
  /** The run begins executing (before any of its graph's happenings). */
  runStarted(): void;
  /** The run ended; nothing more is told. */
  runEnded(ending: RunEnding): void;
  /** A node's task starts, reading `input`. */
  nodeStarted(call: NodeCall, input: Values): void;
  /** A node's task ended with its writes. */
  nodeEnded(call: NodeCall, written: Values): void;
  /** A node's task stopped without writes: at the interrupts it raised, or (none) because it raised an error. */
  taskStopped(call: NodeCall, interrupts: Interrupt[]): void;
  /** A subgraph node's graph starts in the node's namespace. */
  subgraphStarted(call: NodeCall): void;
  /** A subgraph node's graph ended. */
  subgraphEnded(call: NodeCall): void;
  /** A chunk of a model's reply in a node (`id` is the reply's; the last chunk carries the tool calls). */
  modelChunk(call: NodeCall, chunk: Values): void;
  /** The model's whole reply. */
  modelEnded(call: NodeCall, message: Values): void;
  /** Messages a node returns whole (a tool's answers, a plain node's messages). */
  nodeMessages(call: NodeCall, messages: Values[]): void;
  /** A tool node ran a tool call, which answered. */
  toolCalled(node: NodeCall, call: { id?: string | null; name: string; args: unknown }, answer: Values): void;
  /** A node wrote a value to the stream itself. */
  customWritten(call: NodeCall, value: unknown): void;
  /** A superstep of the graph at `ns` was committed, leaving `values` (`wroteState`: a task wrote a state key). */
  stateWritten(ns: readonly string[], values: Values, wroteState: boolean, checkpoint: WrittenCheckpoint): void;
  /** The run (or, in its namespace, a subgraph) goes on from `head` without input. */
  startedFrom(values: Values, head: WrittenCheckpoint, ns: readonly string[]): void;
  /** The graph at `ns` stops at interrupts (none at a breakpoint). */
  interrupted(ns: readonly string[], interrupts: Interrupt[]): void;
}
