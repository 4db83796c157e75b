// Types of server.mjs, for the TypeScript tests that start the server.

export interface LangGraphServer {
  /** Base URL, such as http://127.0.0.1:40123 */
  url: string;
  /** The CLI's process id (the leader of the server's process group). */
  pid: number;
  /** From spawn to the first answer of /ok. */
  startupMs: number;
  /** The server's project folder (langgraph.json, generated graph modules, server.log, .langgraph_api/). */
  project: string;
  /** Stops the whole process group and removes the server's project folder. */
  stop(): Promise<void>;
}

/** This folder's `agent` graph (src/graph.js) as a `rawGraphs` entry, to serve it beside scripted graphs. */
export const REFERENCE_AGENT_GRAPH: string;

/** The reference graphs of several shapes (src/shapes/), by graph id, as `rawGraphs` entries. */
export const SHAPE_GRAPHS: Record<
  | 'supervisor'
  | 'subgraph_interrupt'
  | 'parallel'
  | 'custom_events'
  | 'tool_function'
  | 'custom_error'
  | 'configured'
  | 'helpdesk'
  | 'travel'
  | 'nested'
  | 'schemas_annotation'
  | 'schemas_state_schema'
  | 'schemas_zod'
  | 'schemas_zod_with_langgraph',
  string
>;

/** The default assistants' configs of SHAPE_GRAPHS (`configured`'s), as `assistantConfigs`. */
export const SHAPE_ASSISTANT_CONFIGS: Record<string, DefaultAssistantConfig>;

/** A default assistant's config as the server reads it from LANGGRAPH_CONFIG: the config, and its `context`. */
export interface DefaultAssistantConfig {
  configurable?: Record<string, unknown>;
  context?: Record<string, unknown>;
  [key: string]: unknown;
}

export function ensureInstalled(options?: { log?: (line: string) => void }): Promise<void>;

/** A scripted graph: the emulator's `graphs.<graph_id>` config (see src/scripted.js). */
export interface ScriptedGraphConfig {
  /** Extra state keys and their defaults; `messages` is always there (default []). */
  state?: Record<string, unknown>;
  /** The chat model of node `agent`: one entry used per model call. */
  replies?: Array<{
    match?: string;
    text?: string;
    tool_calls?: Array<{ name: string; args?: Record<string, unknown>; id?: string }>;
    update?: Record<string, unknown>;
    interrupt?: unknown;
    error?: string;
  }>;
  /** Node `tools`: the content of the ToolMessage answering each call (a tool not listed answers "ok"). */
  tools?: Record<string, string>;
  stream?: { chunk?: 'word' | 'char' | 'whole'; delay_ms?: number };
}

export function readGraphsFile(file: string): Promise<Record<string, ScriptedGraphConfig>>;

export function startLangGraphServer(options: {
  port: number;
  /** Scripted graphs by graph id; without it, the one `agent` graph of src/graph.js. */
  graphs?: Record<string, ScriptedGraphConfig>;
  /** More graphs by langgraph.json spec (`path/to/module.js:export`, relative to the project or absolute), such as a prebuilt to compare with. */
  rawGraphs?: Record<string, string>;
  /** Default assistants' configs by graph id (written to langgraph.json's `env` as LANGGRAPH_CONFIG, the server's only way to give them one). */
  assistantConfigs?: Record<string, DefaultAssistantConfig>;
  timeoutMs?: number;
  log?: (line: string) => void;
}): Promise<LangGraphServer>;
