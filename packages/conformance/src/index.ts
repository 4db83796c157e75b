// @agentplane/conformance: check a live agent server or control plane against the agentplane
// contract. `runConformance` runs the checks; the report helpers print and export its result.
export { type CheckInfo, checkCatalog } from './catalog.js';
export { RUN_TAG } from './checks/agent-server-session.js';
export { CONFORMANCE_GRAPH, CONFORMANCE_GRAPH_ID } from './conformance-graph.js';
export type { CheckIdentity, CheckResult, ConformanceReport, Finding, RateLimitWait, Verdict } from './model.js';
export { junitXml, langGraphNote, progressLine, rateLimitLine, summaryTable } from './report.js';
export { type ConformanceOptions, runConformance } from './run.js';
export { ConformanceUsageError } from './select.js';
