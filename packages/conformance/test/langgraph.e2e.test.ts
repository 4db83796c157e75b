// The run against the real LangGraph JS server (reference-servers/langgraph-js, started by the
// test): it must report exactly the differences the spec declares ("**Differs from the LangGraph
// JS server** (`id`)"), each at least once, and no failure the spec does not explain. A check
// counts for an id when it fails with it, or when the operation it needs is not served and the
// spec declares that (patch-state-served, prune-served).
import { freePort } from '@agentplane/openapi-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { REFERENCE_AGENT_GRAPH, startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import type { ConformanceReport } from '../src/index.js';
import { CONFORMANCE_GRAPH, CONFORMANCE_GRAPH_ID, runConformance, summaryTable } from '../src/index.js';
import { DIFFERENCES_OF_OTHER_GRAPH_SHAPES, declaredDifferences } from '../src/spec.js';

let langgraph: LangGraphServer;
let report: ConformanceReport;

beforeAll(async () => {
  // The reference `agent` graph for threads and most runs, and the conformance script run by LangGraph itself.
  langgraph = await startLangGraphServer({
    port: await freePort(),
    graphs: { [CONFORMANCE_GRAPH_ID]: CONFORMANCE_GRAPH },
    rawGraphs: { agent: REFERENCE_AGENT_GRAPH },
  });
  report = await runConformance({
    agentServer: { url: langgraph.url, graphId: 'agent', allowRuns: true, scriptedGraphId: CONFORMANCE_GRAPH_ID },
  });
  console.log(summaryTable(report));
}, 300_000);
afterAll(async () => {
  await langgraph?.stop();
});

describe('a run against the LangGraph JS server', () => {
  it('reports exactly the differences the spec declares', () => {
    // Less those only a graph with subgraphs shows (the emulator's differential test holds them).
    const declared = [...new Set(declaredDifferences().map((d) => d.id))]
      .filter((id) => !DIFFERENCES_OF_OTHER_GRAPH_SHAPES.includes(id))
      .sort();
    const reported = [...new Set(report.results.flatMap((result) => result.langGraphDifferences))].sort();
    expect(reported).toEqual(declared);
  });

  it('has no failure the spec does not explain', () => {
    const unexplained = report.results.flatMap((result) =>
      result.verdict === 'fail'
        ? result.findings.filter((finding) => !finding.langGraphDifference).map((finding) => `${result.id}: ${finding.message}`)
        : [],
    );
    expect(unexplained).toEqual([]);
    const notServedUnexplained = report.results.filter(
      (result) => result.verdict === 'not served' && result.langGraphDifferences.length === 0,
    );
    expect(notServedUnexplained.map((result) => result.id)).toEqual([]);
  });

  it('fails, because the server differs', () => {
    expect(report.ok).toBe(false);
    expect(report.cleanup.failures).toEqual([]);
  });
});
