// The bundled specs this package checks against (the ones the client packages of the same
// version ship), and what the report reads from them: versions, operation tags, request body
// schemas, and the deliberate differences from the LangGraph JS server that descriptions declare.
import { createRequire } from 'node:module';
import type { ApiName } from './model.js';

// biome-ignore lint/suspicious/noExplicitAny: a JSON document read as it is.
export type SpecDocument = Record<string, any>;

const require = createRequire(import.meta.url);
const SPECS: Record<ApiName, SpecDocument> = {
  'agent-server': require('@agentplane/agent-server/openapi.json') as SpecDocument,
  'control-plane': require('@agentplane/control-plane/openapi.json') as SpecDocument,
};

export const specOf = (api: ApiName): SpecDocument => SPECS[api];

/** JSON pointer escaping (RFC 6901). */
export const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  tags: string[];
  /** `#/paths/~1threads/post` */
  pointer: string;
  /** The request body's component schema (`ThreadSearch`), if it is one. */
  requestSchema: string | undefined;
}

const operationCache = new Map<ApiName, Map<string, SpecOperation>>();

/** Every operation of an API, by operationId. */
export function operationsOf(api: ApiName): Map<string, SpecOperation> {
  let operations = operationCache.get(api);
  if (!operations) {
    operations = new Map();
    for (const [path, item] of Object.entries<SpecDocument>(specOf(api).paths ?? {})) {
      for (const [method, operation] of Object.entries<SpecDocument>(item)) {
        if (!operation?.operationId) continue;
        const ref: unknown = operation.requestBody?.content?.['application/json']?.schema?.$ref;
        operations.set(operation.operationId, {
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path,
          tags: operation.tags ?? [],
          pointer: `#/paths/${escapePointer(path)}/${method}`,
          requestSchema: typeof ref === 'string' ? ref.split('/').pop() : undefined,
        });
      }
    }
    operationCache.set(api, operations);
  }
  return operations;
}

/** A paragraph "**Differs from the LangGraph JS server** (`id`): ..." and where it stands. */
export interface DeclaredDifference {
  id: string;
  /** The object whose description holds it (`#/components/schemas/Thread`). */
  pointer: string;
  text: string;
}

/**
 * Declared differences no check can show: they show only with a graph of a shape the conformance
 * run's own graph (conformance-graph.ts, the ReAct shape) does not have, such as a subgraph. The
 * emulator's differential test, which records the LangGraph JS server running graphs of several
 * shapes and replays them, holds each of them.
 */
export const DIFFERENCES_OF_OTHER_GRAPH_SHAPES: readonly string[] = ['debug-subgraph-task-results'];

const PARAGRAPH = /\*\*Differs from the LangGraph JS server\*\* \(`([a-z0-9-]+)`\):?((?:.|\n(?!\n))*)/g;
let declared: DeclaredDifference[] | undefined;

/** Every deliberate difference the agent server spec declares, where it declares it. */
export function declaredDifferences(): DeclaredDifference[] {
  if (!declared) {
    const found: DeclaredDifference[] = [];
    const walk = (node: unknown, pointer: string): void => {
      if (Array.isArray(node)) {
        for (const [index, item] of node.entries()) walk(item, `${pointer}/${index}`);
      } else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'description' && typeof value === 'string') {
            for (const match of value.matchAll(PARAGRAPH)) found.push({ id: match[1]!, pointer, text: match[2]!.trim() });
          } else walk(value, `${pointer}/${escapePointer(key)}`);
        }
      }
    };
    walk(specOf('agent-server'), '#');
    declared = found;
  }
  return declared;
}

/**
 * The difference declared at `pointer` or the nearest object above it (up to, not including,
 * `#/components/schemas` or `#/paths`). Where one object declares several, the one whose text
 * names `field` (in backticks) is meant; none is returned when that does not single one out.
 */
export function differenceNear(pointer: string, field?: string): string | undefined {
  const all = declaredDifferences();
  for (let at = pointer; at.split('/').length > 3; at = at.slice(0, at.lastIndexOf('/'))) {
    const here = all.filter((d) => d.pointer === at);
    if (here.length === 1) return here[0]!.id;
    if (here.length > 1 && field) {
      const naming = here.filter((d) => d.text.includes(`\`${field}\``));
      if (naming.length === 1) return naming[0]!.id;
    }
    if (here.length > 1) return undefined;
  }
  return undefined;
}

/**
 * Where the spec describes an operation's answer with this status: the component response it
 * refers to (`#/components/responses/ThreadNotFound`, shared by the operations that answer it), or
 * the operation's own response object. A difference in the body of such answers is declared there.
 */
export function responsePointerOf(api: ApiName, operation: SpecOperation, status: string): string {
  const response = specOf(api).paths?.[operation.path]?.[operation.method.toLowerCase()]?.responses?.[status];
  if (typeof response?.$ref === 'string' && response.$ref.startsWith('#/components/responses/')) return response.$ref;
  return `${operation.pointer}/responses/${status}`;
}
