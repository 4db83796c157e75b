// How the recorder reads a run's steps from the upstream's history and the stream its client read
// (src/recorder/run-steps.ts), on a history written here: what the end-to-end recorder test can
// only meet by chance, such as two parallel tasks whose ends arrived in one read.
import { describe, expect, it } from 'vitest';
import type { RecordedTask } from '../src/recorder/run-steps.js';
import { recordThread } from '../src/recorder/thread-runs.js';
import type { StreamedEvent } from '../src/recorder/traffic.js';
import type { UpstreamState } from '../src/recorder/upstream.js';

const RUN = '1ef6a2c4-0000-4000-8000-000000000001';
const THREAD = '1ef6a2c4-0000-4000-8000-0000000000aa';

/** A run on a graph whose superstep runs `a` and `b` in parallel, each appending to `notes`. */
function parallelHistory(): UpstreamState[] {
  const state = (id: string, parent: string | null, at: string, rest: Partial<UpstreamState>): UpstreamState => ({
    values: { notes: [] },
    next: [],
    tasks: [],
    metadata: { run_id: RUN, graph_id: 'review', source: 'loop' },
    created_at: at,
    checkpoint: { checkpoint_id: id },
    parent_checkpoint: parent === null ? null : { checkpoint_id: parent },
    ...rest,
  });
  return [
    state('c1', null, '2026-03-02T09:00:00.000Z', {
      next: ['__start__'],
      tasks: [{ id: 't0', name: '__start__', result: {} }],
      metadata: { run_id: RUN, graph_id: 'review', source: 'input' },
    }),
    state('c2', 'c1', '2026-03-02T09:00:00.010Z', {
      next: ['a', 'b'],
      tasks: [
        { id: 't1', name: 'a', result: { notes: ['a'] } },
        { id: 't2', name: 'b', result: { notes: ['b'] } },
      ],
    }),
    state('c3', 'c2', '2026-03-02T09:00:00.045Z', { values: { notes: ['a', 'b'] } }),
  ];
}

const delayOf = (task: RecordedTask) => (task.do?.find((action) => 'delay_ms' in action)?.delay_ms as number | undefined) ?? 0;

function parallelTasks(events: StreamedEvent[]): Record<string, number> {
  const sightings = new Map([[RUN, { runId: RUN, threadId: THREAD, stateless: false, body: { input: {} }, startedAt: 0, events }]]);
  const capture = { root: parallelHistory(), subgraphs: new Map(), runs: [] };
  const recording = recordThread(THREAD, capture, sightings, () => ({ config: {}, context: {} }));
  const step = recording.holds[0]!.run.steps[0]!;
  if (!('parallel' in step)) throw new Error(`not a parallel step: ${JSON.stringify(step)}`);
  return Object.fromEntries(step.parallel.map((task) => [task.node, delayOf(task)]));
}

describe('parallel tasks', () => {
  it('replay in the order the stream showed them end when their ends arrived in one read', () => {
    const delays = parallelTasks([
      { at: 0, event: 'metadata', data: { run_id: RUN } },
      { at: 10, event: 'values', data: { notes: [] } },
      { at: 40, event: 'updates', data: { b: { notes: ['b'] } } },
      { at: 40, event: 'updates', data: { a: { notes: ['a'] } } },
    ]);
    expect(delays.b).toBe(30);
    expect(delays.a).toBeGreaterThan(delays.b!);
  });

  it('keep the times the stream showed when they already end in that order', () => {
    expect(
      parallelTasks([
        { at: 0, event: 'metadata', data: { run_id: RUN } },
        { at: 10, event: 'values', data: { notes: [] } },
        { at: 15, event: 'updates', data: { b: { notes: ['b'] } } },
        { at: 40, event: 'updates', data: { a: { notes: ['a'] } } },
      ]),
    ).toEqual({ a: 30, b: 5 });
  });
});
