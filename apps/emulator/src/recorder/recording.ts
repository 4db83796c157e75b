// A recording: what the recorder saw, made into a config file of the same format a person writes
// by hand (graphs/graph-config.ts). It keeps every graph the upstream serves (its default
// assistant's config, context and metadata, its drawing, its routers where its history shows them
// (recorded-routes.ts), and its schemas) and, per graph, the runs the traffic made: one entry per
// request (run-entries.ts), each with its steps (run-steps.ts). Each graph's state keys and their
// reducers are read from what the writes did to the values; a key that had a value before any
// write has it as default. No secret is written: keys that name one are redacted in the
// assistants' settings, and the API keys the traffic carried are redacted wherever they would appear.
import { createRequire } from 'node:module';
import { REDACTED } from '../agent-server/graphs/run-requests.js';
import { ConfigError, checkConfig } from '../config/config.js';
import { edgesWithRoutes } from './recorded-routes.js';
import { runEntries } from './run-entries.js';
import type { Transition } from './run-steps.js';
import { EMULATOR_VERSION, schemaReference } from './schema-reference.js';
import type { RouteObservation, ThreadRecording } from './thread-runs.js';
import type { UpstreamGraph } from './upstream.js';

type Values = Record<string, unknown>;

const require = createRequire(import.meta.url);

/** A key whose value is a secret (an API key, a token, a password): redacted in what is recorded. */
const SECRET_KEY = /(api[_-]?key|secret|token|password|passwd|authorization|credential|private[_-]?key)/i;

export interface RecordingInput {
  upstream: string;
  graphs: readonly UpstreamGraph[];
  threads: readonly ThreadRecording[];
  /** Credentials the traffic carried (the upstream's key, clients' keys): never written. */
  secrets: readonly string[];
  recordedAt: Date;
  /** Where the recording is written: its header's `$schema` is found from there. */
  out: string;
}

/** The config of a recording, as an object: `graphs` by graph ID. */
export function recordingConfig(input: RecordingInput): { graphs: Record<string, Values> } {
  const graphs: Record<string, Values> = {};
  const runsOf = runEntries(input.threads.flatMap((thread) => thread.holds));
  const transitionsOf = new Map<string, Transition[]>();
  const initialOf = new Map<string, Values>();
  const breakpointsOf = new Map<string, Map<string, Set<string>>>();
  const routesOf = new Map<string, RouteObservation[]>();
  /** Each graph's subgraph nodes' states: by graph, by node. */
  const subgraphsOf = new Map<string, Map<string, { initial: Values; keys: Set<string>; transitions: Transition[] }>>();
  for (const thread of input.threads) {
    for (const { graphId, observation } of thread.routes) routesOf.set(graphId, [...(routesOf.get(graphId) ?? []), observation]);
    const graphId = thread.holds[0]?.graphId;
    if (graphId) {
      const breakpoints = breakpointsOf.get(graphId) ?? new Map<string, Set<string>>();
      for (const [graph, nodes] of thread.breakpoints) breakpoints.set(graph, new Set([...(breakpoints.get(graph) ?? []), ...nodes]));
      breakpointsOf.set(graphId, breakpoints);
      transitionsOf.set(graphId, [...(transitionsOf.get(graphId) ?? []), ...thread.transitions.filter((transition) => !transition.graph)]);
      const subgraphs = subgraphsOf.get(graphId) ?? new Map();
      for (const [node, state] of thread.subgraphStates) {
        const known = subgraphs.get(node) ?? { initial: state.initial, keys: new Set<string>(), transitions: [] };
        for (const key of state.keys) known.keys.add(key);
        known.transitions.push(...thread.transitions.filter((transition) => transition.graph === node));
        subgraphs.set(node, known);
      }
      subgraphsOf.set(graphId, subgraphs);
    }
    if (thread.initialValues && !initialOf.has(thread.initialValues.graphId))
      initialOf.set(thread.initialValues.graphId, thread.initialValues.values);
  }
  const ids = new Set([...input.graphs.map((graph) => graph.graphId), ...runsOf.keys()]);
  for (const graphId of ids) {
    const upstream = input.graphs.find((graph) => graph.graphId === graphId);
    const graph: Values = {};
    const channels = channelsOf(upstream, initialOf.get(graphId), transitionsOf.get(graphId) ?? []);
    graph.channels = channels;
    const breakpoints = breakpointsOf.get(graphId);
    if (breakpoints?.get('')?.size) graph.interrupt_before = [...breakpoints.get('')!];
    // A subgraph node's own state: its keys, each with its reducer and default, read as the graph's are.
    const subgraphs = subgraphsOf.get(graphId);
    if (subgraphs && subgraphs.size > 0)
      graph.subgraphs = Object.fromEntries(
        [...subgraphs].map(([node, state]) => [
          node,
          {
            channels: channelsOf(undefined, state.initial, state.transitions, [...state.keys]),
            ...(breakpoints?.get(node)?.size ? { interrupt_before: [...breakpoints.get(node)!] } : {}),
          },
        ]),
      );
    if (upstream) {
      const { created_by: _createdBy, ...metadata } = upstream.assistant.metadata ?? {};
      const assistant: Values = {};
      if (Object.keys(upstream.assistant.config ?? {}).length > 0) assistant.config = redacted(upstream.assistant.config);
      if (Object.keys(upstream.assistant.context ?? {}).length > 0) assistant.context = redacted(upstream.assistant.context);
      if (Object.keys(metadata).length > 0) assistant.metadata = redacted(metadata);
      if (upstream.assistant.description) assistant.description = upstream.assistant.description;
      if (Object.keys(assistant).length > 0) graph.assistant = assistant;
      if (upstream.drawing) {
        graph.drawing = upstream.drawing;
        graph.nodes = nodesOfDrawing(upstream.drawing.plain);
        graph.edges = edgesWithRoutes(upstream.drawing.plain, routesOf.get(graphId) ?? [], Object.keys(channels));
      }
      if (upstream.schemas) {
        const { graph_id: _graphId, ...schemas } = upstream.schemas;
        graph.schemas = schemas;
      }
    }
    // What a run was asked may carry secrets too (a created assistant's key): redacted, and a replay takes them as matching any value.
    graph.runs = (runsOf.get(graphId) ?? []).map((entry) => ({ ...entry, request: redacted(entry.request) }));
    graphs[graphId] = graph;
  }
  return { graphs };
}

/** The recording as the text of its file (YAML, with a header saying what it is and how to replay it), and what it holds. */
export function recordingText(input: RecordingInput): {
  text: string;
  config: { graphs: Record<string, Values> };
  graphs: number;
  runs: number;
} {
  const yaml = require('yaml') as typeof import('yaml');
  const config = recordingConfig(input);
  const runs = Object.values(config.graphs).reduce((sum, graph) => sum + (graph.runs as unknown[]).length, 0);
  const header = [
    `# yaml-language-server: $schema=${schemaReference(input.out)}`,
    `# Recorded by \`agentplane-emulator record\` ${EMULATOR_VERSION} from ${withoutCredentials(input.upstream)} on ${input.recordedAt.toISOString()}:`,
    `# ${Object.keys(config.graphs).length} graph(s), ${runs} run(s). Replay it with \`agentplane-emulator --config <this file>\``,
    '# (`--time-scale 0.1` replays ten times faster). Edit it as any config: see the emulator README.',
    '',
  ].join('\n');
  let text = header + yaml.stringify(config, { lineWidth: 0, aliasDuplicateObjects: false });
  for (const secret of input.secrets) if (secret.length >= 4) text = text.split(secret).join(REDACTED);
  return { text, config, graphs: Object.keys(config.graphs).length, runs };
}

/** A URL without its user name, password and query (which may carry credentials). */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(the upstream)';
  }
}

function redacted(value: unknown): Values {
  const walk = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, SECRET_KEY.test(key) ? REDACTED : walk(inner)]));
    return item;
  };
  return walk(value) as Values;
}

/** The graph's nodes in its drawing's order (without `__start__` and `__end__`). */
function nodesOfDrawing(drawing: Values): string[] {
  const nodes = (drawing.nodes as { id: string }[] | undefined) ?? [];
  return nodes.map((node) => node.id).filter((id) => id !== '__start__' && id !== '__end__');
}

type Reducer = 'replace' | 'append' | 'add' | 'merge' | 'messages';

/**
 * The state's keys: those the graph's schema declares and those its values showed, each with the
 * reducer every write observed agrees with (replace when several would), and a default when the
 * key had a value before any input.
 */
function channelsOf(
  upstream: UpstreamGraph | undefined,
  initial: Values | undefined,
  transitions: readonly Transition[],
  seen: readonly string[] = [],
): Values {
  const declared = Object.keys(
    (((upstream?.schemas?.state_schema as Values | undefined)?.properties as Values | undefined) ?? {}) as Values,
  );
  const keys = [...new Set([...declared, ...seen, ...Object.keys(initial ?? {}), ...transitions.map((transition) => transition.key)])];
  const channels: Values = {};
  for (const key of keys) {
    const seen = transitions.filter((transition) => transition.key === key);
    const reducer = reducerOf(key, seen, upstream, initial?.[key]);
    channels[key] = {
      ...(reducer === 'replace' ? {} : { reducer }),
      ...(initial && Object.hasOwn(initial, key) ? { default: initial[key] } : {}),
    };
  }
  return channels;
}

function reducerOf(key: string, transitions: readonly Transition[], upstream: UpstreamGraph | undefined, initial: unknown): Reducer {
  const property = ((upstream?.schemas?.state_schema as Values | undefined)?.properties as Values | undefined)?.[key] as Values | undefined;
  // Messages are objects with a type (or a role): a list of anything else under `messages` has another reducer.
  const isMessageList = (value: unknown) =>
    Array.isArray(value) && value.every((item) => isObject(item) && (typeof item.type === 'string' || typeof item.role === 'string'));
  const listsOnlyMessages = transitions.every((t) => isMessageList(t.after));
  if (listsOnlyMessages && (property?.langgraph_type === 'messages' || key === 'messages')) return 'messages';
  // What each reducer would have made of a transition's writes: it fits when that is what the values show.
  const fits: Record<Exclude<Reducer, 'messages'>, (t: Transition) => boolean> = {
    replace: (t) => same(t.after, t.writes.at(-1)),
    append: (t) => Array.isArray(t.after) && same(t.after, [Array.isArray(t.before) ? t.before : [], ...t.writes].flat(1)),
    add: (t) =>
      typeof t.after === 'number' &&
      t.after === t.writes.reduce<number>((sum, w) => sum + Number(w), typeof t.before === 'number' ? t.before : 0),
    merge: (t) => isObject(t.after) && same(t.after, Object.assign({}, isObject(t.before) ? t.before : {}, ...(t.writes as Values[]))),
  };
  // Tasks of one superstep wrote in an order the history does not keep: any order of their writes will do.
  const candidates = (Object.keys(fits) as (keyof typeof fits)[]).filter((reducer) =>
    transitions.every((transition) => orders(transition.writes).some((writes) => fits[reducer]({ ...transition, writes }))),
  );
  // A list that starts empty and that writes only ever extended: appended to, though replacing would have said the same.
  if (candidates.includes('append') && Array.isArray(initial)) return 'append';
  if (candidates.length === 0 || candidates.includes('replace')) return 'replace';
  return candidates[0]!;
}

/** Every order of a superstep's writes (a few tasks at most: beyond four, the order given and its reverse). */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  if (items.length > 4) return [[...items], [...items].reverse()];
  return items.flatMap((item, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

const isObject = (value: unknown): value is Values => value !== null && typeof value === 'object' && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The recording, with only what the emulator can serve: a graph it would refuse is left out (each
 * said, with why). The recorder writes what the emulator reads; one it could not is a graph that
 * keeps other values than messages under `messages` (which the API types as messages), or a bug.
 */
export function servableRecording(
  input: RecordingInput,
  origin: string,
): { recording: ReturnType<typeof recordingText>; leftOut: string[] } {
  const recording = recordingText(input);
  const refused = refusedGraphs(recording.config, origin);
  if (refused.size === 0) return { recording, leftOut: [] };
  const leftOut = [...refused].map(
    ([graphId, problems]) =>
      `graph ${graphId} is left out: the emulator could not serve it as recorded (${problems.join('; ')})${problems.some((problem) => problem.includes('.channels.messages')) ? '' : ': a bug of the recorder, please report it'}`,
  );
  const kept = recordingText({
    ...input,
    graphs: input.graphs.filter((graph) => !refused.has(graph.graphId)),
    threads: input.threads.map((thread) => ({ ...thread, holds: thread.holds.filter((hold) => !refused.has(hold.graphId)) })),
  });
  return { recording: kept, leftOut };
}

/** The graphs of a recording the emulator would refuse, each with its problems. */
function refusedGraphs(config: { graphs: Record<string, Values> }, origin: string): Map<string, string[]> {
  const refused = new Map<string, string[]>();
  try {
    checkConfig(config, origin);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A graph ID may hold dots: the longest ID the line starts with names it.
    const ids = Object.keys(config.graphs).sort((a, b) => b.length - a.length);
    for (const line of error.message
      .split('\n')
      .slice(1)
      .map((text) => text.trim())) {
      const graphId = ids.find((id) => [':', '.', '['].some((after) => line.startsWith(`graphs.${id}${after}`)));
      if (graphId) refused.set(graphId, [...(refused.get(graphId) ?? []), line]);
    }
    if (refused.size === 0) throw new Error(`the recording would be refused, and no graph is named why: ${error.message}`);
  }
  return refused;
}
