// The metadata LangGraph's platform gives every run: its checkpoints' metadata and every callback
// of its graph (tasks, chat model, tools, `events`, `debug` configs) carry it. One builder keeps
// the key order the real server sends (the integration, the run's own metadata, then attempt,
// plan, host, thread and run), so the stream modes and the checkpoints cannot drift apart.

type Values = Record<string, unknown>;

/** Who a run is, as its metadata names it. */
export interface RunIdentity {
  runId: string;
  threadId: string;
  attempt: number;
  /** The run's `config.metadata` (the assistant's, the thread's and its own). */
  metadata: Values;
}

/**
 * `integration` is the callback's `ls_integration` (`langgraph` for the graph, its nodes and
 * tools, `langchain_chat_model` for the model); a task's metadata names no thread, as in LangGraph.
 */
export function platformMetadata(run: RunIdentity, integration = 'langgraph', { withThread = true } = {}): Values {
  return {
    ls_integration: integration,
    ...run.metadata,
    run_attempt: run.attempt,
    langgraph_plan: 'developer',
    langgraph_host: 'self-hosted',
    ...(withThread ? { thread_id: run.threadId } : {}),
    run_id: run.runId,
  };
}
