// A recorded graph's routers, where its drawing and its history show them: a node whose edges are
// conditional (the drawing) and where the graph went after it, from the state it left (the history:
// a run's step of that node alone, or a state update applied as it). Routes are written when one
// simple condition explains every observation and the graph went at least two ways: the last
// message calls tools (as the prebuilt tools_condition routes), else a state key's value, else the
// last message's content. Otherwise none is written, and a router's choice stays the script's.

import { callsTools } from '../agent-server/graphs/routes.js';
import { lastMessage } from '../agent-server/graphs/templates.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { RouteObservation } from './thread-runs.js';

type Values = Record<string, unknown>;

const END = '__end__';

/** A route as the config writes it (graph-config.ts's ROUTE). */
export type RecordedRoute = { to: string } & Values;

/**
 * The edges of a drawing as the config writes them, each node's conditional edges as one edge to
 * all their targets, with the routes its observations show.
 */
export function edgesWithRoutes(drawing: Values, observations: readonly RouteObservation[], stateKeys: readonly string[]): Values[] {
  const edges = (drawing.edges as { source: string; target: string; conditional?: boolean }[] | undefined) ?? [];
  const written: Values[] = [];
  const routed = new Set<string>();
  for (const edge of edges) {
    if (!edge.conditional) {
      written.push({ from: edge.source, to: edge.target });
      continue;
    }
    if (routed.has(edge.source)) continue;
    routed.add(edge.source);
    const targets = edges.filter((other) => other.conditional && other.source === edge.source).map((other) => other.target);
    const fixed = edges.filter((other) => !other.conditional && other.source === edge.source).map((other) => other.target);
    const seen = observations.filter((observation) => observation.node === edge.source);
    const routes = routesOf(seen, targets, fixed, stateKeys);
    written.push({ from: edge.source, to: targets.length === 1 ? targets[0] : targets, conditional: true, ...(routes ? { routes } : {}) });
  }
  return written;
}

/** The routes that explain where the graph went after a node, each observation with one target; undefined when none does. */
function routesOf(
  observations: readonly RouteObservation[],
  targets: readonly string[],
  fixed: readonly string[],
  stateKeys: readonly string[],
): RecordedRoute[] | undefined {
  const seen: { values: Values; to: string }[] = [];
  for (const { values, next } of observations) {
    const picked = next.filter((node) => !fixed.includes(node));
    if (picked.length > 1) return undefined;
    const to = picked[0] ?? END;
    if (!targets.includes(to)) return undefined;
    seen.push({ values, to });
  }
  if (new Set(seen.map((observation) => observation.to)).size < 2) return undefined;
  const byToolCalls = split(seen, (values) => callsTools(values));
  if (byToolCalls && byToolCalls.size === 2) return [{ tool_calls: true, to: byToolCalls.get('true')! }, { to: byToolCalls.get('false')! }];
  const candidates = [
    ...stateKeys.filter((key) => key !== 'messages').map((key) => ({ value: `{{state.${key}}}`, read: (values: Values) => values[key] })),
    { value: '{{last.message.content}}', read: (values: Values) => lastMessage(values, 'message')?.content },
  ];
  let best: RecordedRoute[] | undefined;
  for (const { value, read } of candidates) {
    const byValue = split(seen, read);
    if (!byValue) continue;
    const routes = valueRoutes(value, byValue);
    if (!best || routes.length < best.length) best = routes;
  }
  return best;
}

/** Each observed value (as canonical JSON) and where the graph went from it; undefined when one value went two ways. */
function split(seen: readonly { values: Values; to: string }[], read: (values: Values) => unknown): Map<string, string> | undefined {
  const to = new Map<string, string>();
  for (const observation of seen) {
    const key = canonicalJson(read(observation.values) ?? null);
    if (to.has(key) && to.get(key) !== observation.to) return undefined;
    to.set(key, observation.to);
  }
  return to;
}

/** Routes by a value: one branch per target but the one most values go to, which is the default. */
function valueRoutes(value: string, byValue: ReadonlyMap<string, string>): RecordedRoute[] {
  const valuesOf = new Map<string, unknown[]>();
  for (const [key, to] of byValue) valuesOf.set(to, [...(valuesOf.get(to) ?? []), JSON.parse(key)]);
  const [fallback] = [...valuesOf].sort((a, b) => b[1].length - a[1].length)[0]!;
  const routes: RecordedRoute[] = [];
  for (const [to, values] of valuesOf) {
    if (to === fallback) continue;
    routes.push(values.length === 1 ? { value, equals: values[0], to } : { value, in: values, to });
  }
  return [...routes, { to: fallback }];
}
