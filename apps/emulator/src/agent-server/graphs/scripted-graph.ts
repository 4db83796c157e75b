// One configured graph, ready to run: its state's channels, its shape, its default assistant, and
// its script: the ReAct shorthand's replies, or the runs of a graph of any shape. The config's
// format is graph-config.ts's; what the format cannot say is checked by graph-problems.ts first.
import type { Channel } from './channels.js';
import { Channels } from './channels.js';
import { replyProblems, replyTextProblems } from './graph-problems.js';
import { edgesOf, GraphShape, shapeOfRuns } from './graph-shape.js';
import type { Chunking, GraphConfig, GraphDefinition, StepConfig, StepPlan, TaskPlan } from './graph-types.js';
import { REACT_AGENT_SHAPE, reactNextAfter, reactTaskPlan } from './react-agent.js';
import { Replies } from './replies.js';
import { routersOf } from './routes.js';
import type { ScriptPosition } from './run-scripts.js';
import { RunScripts, runScript } from './run-scripts.js';
import { compileStep } from './task-plan.js';

type Values = Record<string, unknown>;

/** With no `graphs` configured: one graph, `agent`, that echoes the last human message. */
export const DEFAULT_GRAPHS: Readonly<Record<string, GraphDefinition>> = { agent: { replies: [{ text: '{{input}}' }] } };

/** How a reply's text is cut into message chunks, and the pause before each. */
export interface Streaming {
  chunk: Chunking;
  delayMs: number;
}

/** The default assistant's settings, as the graph gives them. */
export interface AssistantDefaults {
  config: Values;
  context: Values;
  metadata: Values;
  description: string | null;
}

export class ScriptedGraph {
  readonly channels: Channels;
  readonly shape: GraphShape;
  readonly streaming: Streaming;
  readonly assistant: AssistantDefaults;
  /** The ReAct shorthand's model replies, or the runs of a graph of any shape (exactly one of the two). */
  readonly replies: Replies | undefined;
  readonly runs: RunScripts | undefined;
  /** Node `tools` of the ReAct shorthand: the answer to each tool, by name. */
  private readonly toolAnswers: Readonly<Record<string, string>>;
  /** The drawing and schemas a recording kept, answered as they are. */
  readonly recordedDrawing: { plain?: Values; xray?: Values } | undefined;
  readonly recordedSchemas: Values | undefined;
  /** The channels of each subgraph node (by default the graph's own). */
  private readonly subgraphChannels: ReadonlyMap<string, Channels>;
  /** The breakpoints compiled into the graph: its own (key ''), and each subgraph node's. */
  private readonly breakpoints: ReadonlyMap<string, Breakpoints>;

  constructor(
    readonly id: string,
    definition: GraphDefinition,
  ) {
    this.channels = new Channels(channelsOf(definition.channels, definition.state));
    this.streaming = { chunk: definition.stream?.chunk ?? 'word', delayMs: definition.stream?.delay_ms ?? 0 };
    this.assistant = {
      config: (definition.assistant?.config as Values | undefined) ?? {},
      context: (definition.assistant?.context as Values | undefined) ?? {},
      metadata: (definition.assistant?.metadata as Values | undefined) ?? {},
      description: definition.assistant?.description ?? null,
    };
    this.toolAnswers = definition.tools ?? {};
    this.recordedDrawing = definition.drawing as ScriptedGraph['recordedDrawing'];
    this.recordedSchemas = definition.schemas as Values | undefined;
    if (definition.runs) {
      const ids = new Map(definition.runs.flatMap((entry, index) => (entry.id === undefined ? [] : [[entry.id, index] as const])));
      const compiled = definition.runs.map((entry) =>
        runScript(entry as Parameters<typeof runScript>[0], (entry.steps as StepConfig[]).map(compileStep), ids),
      );
      this.runs = new RunScripts(id, compiled);
      this.replies = undefined;
      this.shape = shapeOf(
        definition,
        compiled.map((script) => script.steps),
      );
    } else {
      // A reply function's answer is checked as a config entry is.
      this.replies = new Replies(id, definition.replies ?? [], (entry) => [
        ...replyProblems(entry, new Set(this.channels.keys), this.toolAnswers),
        ...replyTextProblems(entry, new Set(this.channels.keys)),
      ]);
      this.runs = undefined;
      this.shape = REACT_AGENT_SHAPE;
    }
    this.breakpoints = new Map([
      ['', breakpointsOf(definition)],
      ...Object.entries(definition.subgraphs ?? {}).map(([node, subgraph]) => [node, breakpointsOf(subgraph)] as const),
    ]);
    this.subgraphChannels = new Map(
      [...this.shape.subgraphs.keys()].map((node) => {
        const declared = definition.subgraphs?.[node]?.channels;
        return [node, declared ? new Channels(channelsOf(declared, undefined)) : this.channels];
      }),
    );
  }

  /** Every state key with its default: the state before anything is written. */
  get defaults(): Values {
    return this.channels.defaults();
  }

  /** The state keys a run's input, an update or a step may write, in the order the graph declares them. */
  get stateKeys(): string[] {
    return this.channels.keys;
  }

  /** The channels of a subgraph node's state. */
  channelsOf(subgraphNode: string): Channels {
    return this.subgraphChannels.get(subgraphNode) ?? this.channels;
  }

  /** The nodes the graph (or the subgraph of a node) stops before and after, every run. */
  breakpointsOf(subgraphNode?: string): Breakpoints {
    return this.breakpoints.get(subgraphNode ?? '') ?? NO_BREAKPOINTS;
  }

  /** The ReAct shorthand's shape: `agent` makes the model call, `tools` answers. */
  get isReactAgent(): boolean {
    return this.replies !== undefined;
  }

  /**
   * What `node` does when it runs at a position of the script: the ReAct node's plan, or the task
   * of the step at `position` that runs `node`.
   */
  taskPlan(node: string, position: ScriptPosition | undefined): TaskPlan | undefined {
    if (this.replies) return reactTaskPlan(node, this.toolAnswers);
    if (!position) return undefined;
    return this.runs?.step(position)?.find((task) => task.node === node);
  }

  /**
   * The nodes that run after an update applied as `node` left `values`: the ReAct router's choice;
   * in a graph of any shape the fixed edges from `node` and its routers' picks where the config
   * writes their routes, else where a router goes the next step of the run that stands at `position`.
   */
  nextAfterUpdate(node: string, values: Values, position: ScriptPosition | undefined): string[] {
    if (this.replies) return reactNextAfter(node, values);
    if (this.shape.hasRouters(node)) return this.shape.routed(node, values) ?? [];
    if (node === '__start__' && position) return this.runs!.nodesAt(position);
    if (this.shape.routesAfter(node)) return position ? this.runs!.nodesAt(position) : [];
    return this.shape.fixedSuccessors(node);
  }

  /**
   * Where the graph goes after a run's last step when its entry does not say: the routers' picks
   * after those nodes, where the config writes them (none otherwise: the run ended).
   */
  nextAfterSteps(nodes: readonly string[], values: Values): string[] {
    return [...new Set(nodes.flatMap((node) => (this.shape.hasRouters(node) ? (this.shape.routed(node, values) ?? []) : [])))];
  }

  /** The answer to a call of `tool` (a template) by the ReAct shorthand's tool node. */
  toolAnswer(tool: string): string {
    return Object.hasOwn(this.toolAnswers, tool) ? this.toolAnswers[tool]! : 'ok';
  }
}

/** The nodes a graph stops before and after, every run. */
export interface Breakpoints {
  before: readonly string[];
  after: readonly string[];
}

const NO_BREAKPOINTS: Breakpoints = { before: [], after: [] };

function breakpointsOf(graph: { interrupt_before?: readonly string[]; interrupt_after?: readonly string[] }): Breakpoints {
  return { before: graph.interrupt_before ?? [], after: graph.interrupt_after ?? [] };
}

/** The channels a graph declares: `channels` (or, without it, `messages` with its reducer), and the keys of `state` with their defaults. */
function channelsOf(channels: GraphConfig['channels'], state: GraphConfig['state']): Record<string, Channel> {
  const declared: Record<string, Channel> = {};
  if (channels)
    for (const [key, channel] of Object.entries(channels)) declared[key] = { reducer: channel.reducer ?? 'replace', ...pick(channel) };
  else declared.messages = { reducer: 'messages', default: [] };
  for (const [key, value] of Object.entries(state ?? {})) declared[key] = { reducer: declared[key]?.reducer ?? 'replace', default: value };
  return declared;
}

const pick = (channel: { default?: unknown }) => (Object.hasOwn(channel, 'default') ? { default: channel.default } : {});

/** A graph of any shape: its declared nodes and edges, or those its runs show; its subgraph nodes with their shapes, at any depth. */
function shapeOf(definition: Pick<GraphDefinition, 'nodes' | 'edges' | 'subgraphs'>, runs: readonly StepPlan[][]): GraphShape {
  const read = shapeOfRuns(
    runs.map((steps) => steps.map((step) => step.map((task) => task.node))),
    definition.nodes,
  );
  const nodes = definition.nodes ?? read.nodes;
  const subgraphs = new Map<string, GraphShape>();
  for (const node of nodes) {
    const declared = definition.subgraphs?.[node];
    // Every run of the subgraph node's steps, wherever a run takes it.
    const innerRuns = runs.flatMap((steps) =>
      steps.flatMap((step) => step.flatMap((task) => (task.node === node && task.subgraph ? [task.subgraph] : []))),
    );
    if (declared || innerRuns.length > 0) subgraphs.set(node, shapeOf({ nodes: declared?.nodes, edges: declared?.edges }, innerRuns));
  }
  return new GraphShape(nodes, definition.edges ? edgesOf(definition.edges) : read.edges, subgraphs, routersOf(definition.edges));
}

/** The graphs of an emulator by graph_id: the configured ones, or the default echo graph. */
export class GraphRegistry {
  private readonly graphs: ReadonlyMap<string, ScriptedGraph>;

  constructor(definitions: Readonly<Record<string, GraphDefinition>> | undefined) {
    const chosen = definitions && Object.keys(definitions).length > 0 ? definitions : DEFAULT_GRAPHS;
    this.graphs = new Map(Object.entries(chosen).map(([id, definition]) => [id, new ScriptedGraph(id, definition)]));
  }

  get(graphId: string): ScriptedGraph | undefined {
    return this.graphs.get(graphId);
  }

  /** Every graph id, in the order the config lists them. */
  ids(): string[] {
    return [...this.graphs.keys()];
  }
}
