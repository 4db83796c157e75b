// `agentplane conformance` against the Prism mock: a static mock answers every request with a
// valid example, so every schema check passes, and it stores nothing, so the stateful checks
// fail. The run must tell a static mock from a server.
import { runConformance, summaryTable } from '@agentplane/conformance';
import { describe, expect, inject, it } from 'vitest';

describe('a conformance run against the Prism mock of the agent server', () => {
  it('passes the schema checks and fails the stateful ones', async () => {
    // Leave to run graphs: a mock runs nothing, and the run operations' answers get their schema checks too.
    const report = await runConformance({ agentServer: { url: inject('mockUrls')['agent-server']!, allowRuns: true } });
    console.log(summaryTable(report));
    const schema = report.results.filter((result) => result.area === 'schema');
    const behaviour = report.results.filter((result) => result.area !== 'schema');
    expect(schema.filter((result) => result.verdict !== 'pass').map((result) => [result.id, result.verdict, result.findings])).toEqual([]);
    // The checks that hold only for a server that remembers what it was told.
    const stateful = [
      'threads:create-supersteps',
      'threads:get',
      'threads:copy',
      'threads:delete',
      'state:update',
      'history:before-and-limit',
      'search:filters',
      'search:count-and-total',
    ];
    expect(behaviour.filter((result) => stateful.includes(result.id)).map((result) => [result.id, result.verdict])).toEqual(
      stateful.map((id) => [id, 'fail']),
    );
    expect(report.ok).toBe(false);
    // A cancelled run that never ends waits out its budget (15 s), stateless runs 2 s each.
  }, 120_000);
});
