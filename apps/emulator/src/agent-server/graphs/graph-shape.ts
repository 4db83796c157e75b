// A graph's shape: its nodes, the edges between them, and which nodes are subgraphs. It decides
// what LangGraph's edges decide without the graph's code: which nodes run after a state update
// applied as a node (fixed edges, and routers where the config writes their `routes`: routes.ts;
// without, a router's choice is the script's), and the drawing
// `/assistants/{id}/graph` answers (LangGraph's `Graph.toJSON()`, with `xray` inlining subgraphs
// as `<node>:<inner node>`).
import type { AssistantGraph } from '@agentplane/agent-server';

export const START = '__start__';
export const END = '__end__';

export interface Edge {
  source: string;
  target: string;
  conditional: boolean;
}

/** A router of a conditional edge (routes.ts): where it sends the graph from a state. */
export interface EdgeRouter {
  pick(values: Record<string, unknown>): string;
}

export class GraphShape {
  constructor(
    /** The graph's own nodes, in the order it adds them. */
    readonly nodes: readonly string[],
    /** Its edges, each from one node to one node (a fan-out is several). */
    readonly edges: readonly Edge[],
    /** The nodes that are subgraphs, with their shapes. */
    readonly subgraphs: ReadonlyMap<string, GraphShape> = new Map(),
    /** The routers the config writes, by the node they leave. */
    private readonly routers: ReadonlyMap<string, readonly EdgeRouter[]> = new Map(),
  ) {}

  /**
   * The nodes that run after `node` left `values`, when its routers are written: its fixed edges'
   * targets and each router's pick (`__end__` is none); undefined when a router after it has no
   * routes (its choice is not known outside a run).
   */
  routed(node: string, values: Record<string, unknown>): string[] | undefined {
    const routers = this.routers.get(node);
    if (!routers) return this.routesAfter(node) ? undefined : this.fixedSuccessors(node);
    const fixed = this.edges.filter((edge) => edge.source === node && !edge.conditional).map((edge) => edge.target);
    return [...new Set([...fixed, ...routers.map((router) => router.pick(values))])].filter((target) => target !== END);
  }

  /** Whether a router after `node` says where it goes (its routes are written). */
  hasRouters(node: string): boolean {
    return this.routers.has(node);
  }

  has(node: string): boolean {
    return this.nodes.includes(node);
  }

  /**
   * The nodes that run after `node` wrote, by the fixed edges that leave it (all of them run);
   * none when a router decides (conditional edges), as no routing code runs here.
   */
  fixedSuccessors(node: string): string[] {
    const leaving = this.edges.filter((edge) => edge.source === node);
    if (leaving.some((edge) => edge.conditional)) return [];
    return [...new Set(leaving.map((edge) => edge.target).filter((target) => target !== END))];
  }

  /** Whether a router picks where the graph goes after `node` (its edges are conditional). */
  routesAfter(node: string): boolean {
    return this.edges.some((edge) => edge.source === node && edge.conditional);
  }

  /** The drawing: `__start__`, the nodes, `__end__`; with `xray`, subgraphs' nodes in their place, at any depth. */
  drawing(xray = false): AssistantGraph {
    const drawn = xray ? this.inlined() : { nodes: this.nodes.map((id) => ({ id, subgraph: this.subgraphs.has(id) })), edges: this.edges };
    return {
      nodes: [
        schemaNode(START),
        ...drawn.nodes.map(({ id, subgraph }) =>
          subgraph
            ? { id, type: 'runnable', data: { id: ['langgraph', 'pregel', 'CompiledStateGraph'], name: 'LangGraph' } }
            : { id, type: 'runnable', data: { id: ['langgraph', 'RunnableCallable'], name: id.split(':').at(-1)! } },
        ),
        schemaNode(END),
      ],
      // LangGraph draws the fixed edges first, then the conditional ones.
      edges: [...drawn.edges.filter((edge) => !edge.conditional), ...drawn.edges.filter((edge) => edge.conditional)].map((edge) => ({
        ...edge,
      })),
    };
  }

  /** The nodes and edges with every subgraph node replaced by its own nodes, named `<node>:<inner>`. */
  private inlined(): { nodes: { id: string; subgraph: boolean }[]; edges: Edge[] } {
    const nodes: { id: string; subgraph: boolean }[] = [];
    const edges: Edge[] = [];
    // Where an edge into a node lands, and where one out of it starts, once subgraphs are inlined.
    const entries = new Map<string, string[]>();
    const exits = new Map<string, string[]>();
    for (const node of this.nodes) {
      const inner = this.subgraphs.get(node);
      if (!inner) {
        nodes.push({ id: node, subgraph: false });
        entries.set(node, [node]);
        exits.set(node, [node]);
        continue;
      }
      const drawnInside = inner.inlined();
      const prefix = (id: string) => `${node}:${id}`;
      nodes.push(...drawnInside.nodes.map(({ id, subgraph }) => ({ id: prefix(id), subgraph })));
      entries.set(
        node,
        drawnInside.edges.filter((edge) => edge.source === START).map((edge) => prefix(edge.target)),
      );
      exits.set(
        node,
        drawnInside.edges.filter((edge) => edge.target === END).map((edge) => prefix(edge.source)),
      );
      for (const edge of drawnInside.edges)
        if (edge.source !== START && edge.target !== END) edges.push({ ...edge, source: prefix(edge.source), target: prefix(edge.target) });
    }
    for (const edge of this.edges)
      for (const source of exits.get(edge.source) ?? [edge.source])
        for (const target of entries.get(edge.target) ?? [edge.target]) edges.push({ source, target, conditional: edge.conditional });
    return { nodes, edges };
  }
}

const schemaNode = (id: string) => ({ id, type: 'schema', data: { $schema: 'https://json-schema.org/draft/2020-12/schema' } });

/** Edges as the config writes them (`to` one node or several) as one edge per target. */
export function edgesOf(
  config: readonly { from: string; to: string | readonly string[]; conditional?: boolean; routes?: readonly unknown[] }[],
): Edge[] {
  return config.flatMap((edge) =>
    [edge.to].flat().map((target) => ({ source: edge.from, target, conditional: edge.conditional ?? edge.routes !== undefined })),
  );
}

/**
 * The shape of a graph whose config names no nodes or edges, read from its runs: its nodes in the
 * order the runs first name them, and from each superstep to the next an edge, conditional where a
 * node is followed by different nodes in different runs (a router chose).
 */
export function shapeOfRuns(
  runs: readonly (readonly (readonly string[])[])[],
  declaredNodes?: readonly string[],
): { nodes: string[]; edges: Edge[] } {
  const nodes: string[] = [...(declaredNodes ?? [])];
  const successors = new Map<string, Set<string>[]>();
  for (const steps of runs) {
    const path = [[START], ...steps, [END]];
    for (const [i, step] of path.entries()) {
      for (const node of step) {
        if (node !== START && node !== END && !nodes.includes(node)) nodes.push(node);
        const next = path[i + 1];
        if (next) successors.set(node, [...(successors.get(node) ?? []), new Set(next)]);
      }
    }
  }
  const edges: Edge[] = [];
  for (const [source, seen] of successors) {
    const targets = [...new Set(seen.flatMap((set) => [...set]))];
    const alwaysTheSame = seen.every((set) => set.size === seen[0]!.size && [...set].every((node) => seen[0]!.has(node)));
    for (const target of targets) edges.push({ source, target, conditional: !alwaysTheSame });
  }
  return { nodes, edges };
}
