// The checks' own contract: every declared difference is one the spec declares, every operation
// named exists in the spec, ids are unique, and the spec's differences are all placed somewhere a
// run can reveal them.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { AGENT_SERVER_CHECKS } from '../src/checks/agent-server.js';
import { CONTROL_PLANE_CHECKS } from '../src/checks/control-plane.js';
import { CONFORMANCE_GRAPH, CONFORMANCE_GRAPH_ID } from '../src/conformance-graph.js';
import { retryAfterMs } from '../src/http.js';
import { isSelected } from '../src/select.js';
import { DIFFERENCES_OF_OTHER_GRAPH_SHAPES, declaredDifferences, differenceNear, operationsOf } from '../src/spec.js';

const checks = [...AGENT_SERVER_CHECKS, ...CONTROL_PLANE_CHECKS];

describe('the checks', () => {
  it('have unique ids and name only operations of the spec', () => {
    expect(new Set(checks.map((c) => c.id)).size).toBe(checks.length);
    for (const c of checks)
      for (const operationId of c.operations) expect(operationsOf(c.api).has(operationId), `${c.id}: ${operationId}`).toBe(true);
  });

  it('declare only differences the spec declares', () => {
    const declared = new Set(declaredDifferences().map((d) => d.id));
    expect(checks.flatMap((c) => (c.difference && !declared.has(c.difference) ? [c.id] : []))).toEqual([]);
  });

  it('reveal every declared difference: by a check, or by an operation the spec says that server lacks', () => {
    const revealed = new Set(AGENT_SERVER_CHECKS.flatMap((c) => (c.difference ? [c.difference] : [])));
    for (const operation of operationsOf('agent-server').values()) {
      const id = differenceNear(operation.pointer);
      if (id?.endsWith('-served')) revealed.add(id);
    }
    for (const id of DIFFERENCES_OF_OTHER_GRAPH_SHAPES) revealed.add(id);
    expect([...new Set(declaredDifferences().map((d) => d.id))].filter((id) => !revealed.has(id))).toEqual([]);
  });
});

describe('differenceNear', () => {
  it('finds the paragraph of a schema property, of its schema (by the field it names), or of an operation', () => {
    expect(differenceNear('#/components/schemas/ThreadState/properties/checkpoint_id', 'checkpoint_id')).toBe('state-checkpoint-fields');
    expect(differenceNear('#/components/schemas/Thread/properties/state_updated_at')).toBe('thread-state-updated-at');
    expect(differenceNear('#/paths/~1threads~1prune/post/responses')).toBe('prune-served');
    expect(differenceNear('#/components/schemas/ThreadSearch/properties/limit')).toBeUndefined();
  });
});

describe('selection', () => {
  const sort = checks.find((c) => c.id === 'search:sort')!;
  it('--only by the operation a check is about, or its tag; --skip by any operation it calls', () => {
    expect(isSelected(sort, { only: ['searchThreads'], skip: [] })).toBe(true);
    expect(isSelected(sort, { only: ['threads'], skip: [] })).toBe(true);
    expect(isSelected(sort, { only: ['createThread'], skip: [] })).toBe(false);
    expect(isSelected(sort, { only: [], skip: ['createThread'] })).toBe(false);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and dates, and backs off without either', () => {
    expect(retryAfterMs('3', 0)).toBe(3000);
    expect(retryAfterMs(null, 0)).toBe(1000);
    expect(retryAfterMs(null, 2)).toBe(4000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString(), 0)).toBeGreaterThan(3000);
  });
});

describe('the conformance script', () => {
  it('is in the README as the emulator config to run it, exactly as exported', () => {
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const block = /## Runs[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    const config = YAML.parse(block ?? '') as { graphs: Record<string, unknown> };
    expect(config.graphs[CONFORMANCE_GRAPH_ID]).toEqual(CONFORMANCE_GRAPH);
    expect(block).toContain(`--scripted-graph-id ${CONFORMANCE_GRAPH_ID}`);
  });
});
