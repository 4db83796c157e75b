// Routers of a graph of any shape: a conditional edge's `routes` (graph-config.ts's ROUTE), the
// declarative form of the function a LangGraph graph passes to addConditionalEdges. A router picks
// the first branch whose condition holds on the state it is given: the last message calls tools
// (`tool_calls`, as the prebuilt tools_condition), or a value read by a template (templates.ts) is
// equal to one, one of several, matched by a glob, or empty; a branch with no condition is the
// default. graph-shape.ts asks them where LangGraph would run the router without the graph's code.
import { canonicalJson } from '../../shared/canonical-json.js';
import { globToRegExp } from '../../shared/glob.js';
import { END } from './graph-shape.js';
import { lastMessage, messageType, renderValue } from './templates.js';

type Values = Record<string, unknown>;

/** A branch as the config writes it. */
export interface RouteConfig {
  to: string;
  tool_calls?: boolean;
  value?: string;
  equals?: unknown;
  in?: unknown[];
  matches?: string;
  empty?: boolean;
}

/** A router: its branches, compiled. */
export class Router {
  private readonly branches: readonly { to: string; holds: (values: Values) => boolean }[];

  constructor(routes: readonly RouteConfig[]) {
    this.branches = routes.map((route) => ({ to: route.to, holds: conditionOf(route) }));
  }

  /** Where the router sends the graph from `values`: the first branch that holds (`__end__` when none does). */
  pick(values: Values): string {
    return this.branches.find((branch) => branch.holds(values))?.to ?? END;
  }
}

function conditionOf(route: RouteConfig): (values: Values) => boolean {
  if (route.tool_calls !== undefined) return (values) => callsTools(values) === route.tool_calls;
  if (route.value === undefined) return () => true;
  const template = route.value;
  const read = (values: Values) => renderValue(template, { state: values });
  if (Object.hasOwn(route, 'equals')) return (values) => same(read(values), route.equals);
  if (route.in) {
    const options = route.in;
    return (values) => options.some((option) => same(read(values), option));
  }
  if (route.matches !== undefined) {
    const glob = globToRegExp(route.matches);
    return (values) => {
      const value = read(values);
      return typeof value === 'string' && glob.test(value);
    };
  }
  return (values) => isEmpty(read(values)) === (route.empty ?? true);
}

/** Whether the last message is an AI message with tool calls. */
export function callsTools(values: Values): boolean {
  const last = lastMessage(values, 'message');
  return last !== undefined && messageType(last) === 'ai' && Array.isArray(last.tool_calls) && last.tool_calls.length > 0;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** The routers of a graph's edges, by the node they leave (a node may have several: each picks, all of them run). */
export function routersOf(edges: readonly { from: string; routes?: readonly RouteConfig[] }[] | undefined): Map<string, Router[]> {
  const routers = new Map<string, Router[]>();
  for (const edge of edges ?? []) if (edge.routes) routers.set(edge.from, [...(routers.get(edge.from) ?? []), new Router(edge.routes)]);
  return routers;
}
