// The page for `agentplane conformance` (conformance.html): every check, read from the checks' own
// definitions (`checkCatalog()` of @agentplane/conformance: id, area, what it checks, the rule it
// enforces, the operations it calls), never a copy kept by hand; and a sample report from a real
// run, made at build time against the emulator in process. The run's id and duration are masked,
// so that two builds of the same sources give the same page.

import { CONFORMANCE_GRAPH, CONFORMANCE_GRAPH_ID, RUN_TAG, runConformance, summaryTable } from '@agentplane/conformance';
import { createEmulator } from '@agentplane/emulator';
import { escapeHtml } from './guide.js';

export const CONFORMANCE_PAGE = 'conformance.html';

/**
 * Runs every check of both APIs (control plane writes included) against a fresh in-process
 * emulator, and returns its summary table with the run's id and duration masked.
 * @returns {Promise<string>}
 */
export async function sampleConformanceReport() {
  const errors = /** @type {string[]} */ ([]);
  // The emulator's echo graph and the conformance script, so that every run check runs.
  const emulator = createEmulator({
    revisionStepMs: 5,
    graphs: { agent: { replies: [{ text: '{{input}}' }] }, [CONFORMANCE_GRAPH_ID]: CONFORMANCE_GRAPH },
    onError: (message) => errors.push(message),
  });
  try {
    const report = await runConformance({
      agentServer: {
        url: emulator.agentServer.url,
        fetch: emulator.agentServer.fetch,
        graphId: 'agent',
        allowRuns: true,
        scriptedGraphId: CONFORMANCE_GRAPH_ID,
      },
      controlPlane: {
        url: emulator.controlPlane.url,
        apiKey: /** @type {string} */ (emulator.defaultApiKey),
        fetch: emulator.controlPlane.fetch,
        allowWrites: true,
        pollIntervalMs: 10,
      },
    });
    // The emulator keeps the contract; a sample that fails would show a broken build, not a sample.
    if (!report.ok || errors.length > 0)
      throw new Error(`the sample conformance run did not pass:\n${summaryTable(report)}\n${errors.join('\n')}`);
    return maskReport(summaryTable(report));
  } finally {
    emulator.close();
  }
}

/**
 * What changes from one run to the next: the run's id and its duration.
 * @param {string} table
 */
export function maskReport(table) {
  return table
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<run id>')
    .replace(/ in \d+(\.\d+)? s\.$/m, ' in <duration> s.');
}

const API_TITLES = { 'agent-server': 'Agent server', 'control-plane': 'Control plane' };

/**
 * The page's HTML.
 * @param {{checks: import('@agentplane/conformance').CheckInfo[], sample: string, references: Record<string, string>}} input
 *   `references`: each API's reference page, by API name.
 */
export function renderConformancePage({ checks, sample, references }) {
  const code = (/** @type {string} */ text) => `<code>${escapeHtml(text)}</code>`;
  const sections = Object.entries(API_TITLES).map(([api, title]) => {
    const rows = checks
      .filter((check) => check.api === api)
      .map(
        (check) => `          <tr id="${escapeHtml(check.id)}">
            <td>${code(check.id)}</td>
            <td>${escapeHtml(check.area)}</td>
            <td>${escapeHtml(check.title)}${check.writes ? ' <span class="meta">(only with <code>--allow-writes</code>)</span>' : ''}</td>
            <td>${escapeHtml(check.rule)}</td>
            <td>${check.operations.map(code).join(', ')}</td>
            <td>${check.langGraphDifference ? code(check.langGraphDifference) : ''}</td>
          </tr>`,
      )
      .join('\n');
    return `      <section id="${api}">
        <h2>${escapeHtml(title)}</h2>
        <p class="meta">The rules are those of the <a href="./${escapeHtml(references[api] ?? '')}">${escapeHtml(title)} reference</a>
          and of the decision record (the letters and numbers in brackets).</p>
        <table>
          <thead><tr><th>Check</th><th>Area</th><th>What it checks</th><th>Rule it enforces</th><th>Operations it calls</th><th>LangGraph JS differs</th></tr></thead>
          <tbody>
${rows}
          </tbody>
        </table>
      </section>`;
  });
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>agentplane conformance: checks and a sample report</title>
    <style>
      body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1f2430; background: #f7f8fa; line-height: 1.5; }
      main { max-width: 80rem; margin: 3rem auto; padding: 0 1.5rem; }
      h1 { font-size: 1.8rem; margin-bottom: .25rem; } h2 { font-size: 1.3rem; margin: 2rem 0 .5rem; }
      a { color: #2456c9; } .meta { color: #6a7182; font-size: .9rem; }
      table { border-collapse: collapse; background: #fff; font-size: .85rem; width: 100%; }
      th, td { border: 1px solid #dde1e8; padding: .35rem .5rem; text-align: left; vertical-align: top; }
      pre { background: #1f2430; color: #e8eaf0; padding: .9rem 1rem; border-radius: 6px; overflow-x: auto; font-size: .8rem; line-height: 1.4; }
      code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
      td code, p code { background: #eceef3; padding: 0 .25rem; border-radius: 3px; }
    </style>
  </head>
  <body>
    <main>
      <p class="meta"><a href="./index.html">agentplane</a></p>
      <h1><code>agentplane conformance</code></h1>
      <p>Checks any live agent server or control plane against the contract held by the bundled specs:</p>
      <pre><code>agentplane conformance --agent-server https://my-deployment.example.com --api-key "$KEY"
agentplane conformance --control-plane https://api.example.com --api-key "$KEY" --allow-writes --junit conformance.xml</code></pre>
      <p>Two layers. Every answer the run receives is validated against the spec: the status documented for the
        operation, the body valid against its schema, error bodies in their documented shapes, declared headers such as
        <code>X-Pagination-Total</code> present; the <code>schema:&lt;operationId&gt;</code> checks report those findings per
        operation. Then stateful scenarios check what a schema cannot express, each naming the rule it enforces. A check
        whose operation the server does not serve (a 404 or 405 for a route whose resources exist) is <em>not served</em>,
        not failed. Select checks with <code>--only</code> and <code>--skip</code> (a check id, an area, an operation id or a
        spec tag).</p>
      <p>It is safe against real servers: every thread it creates carries <code>metadata.${escapeHtml(RUN_TAG)}</code> (the
        run's id), every search and count it makes filters on it, and it deletes its threads at the end, also when
        interrupted. The control plane is only read unless <code>--allow-writes</code>. 429 answers are waited out as
        <code>Retry-After</code> says, not counted.</p>
      <p>The last column names the spec's "Differs from the LangGraph JS server" paragraph on a check's rule, where there
        is one: the LangGraph JS server breaks that rule on purpose. A run against it reports those, and only those, as
        its failures; on any other server such a failure is a failure like the rest.</p>
      <nav class="meta"><a href="#agent-server">Agent server checks</a> · <a href="#control-plane">Control plane checks</a> ·
        <a href="#sample">Sample report</a></nav>
${sections.join('\n')}
      <section id="sample">
        <h2>Sample report</h2>
        <p>The summary table of a real run of every check, control plane writes included, against the emulator, made when
          this page was built (its run id and duration masked).</p>
        <pre><code>${escapeHtml(sample)}</code></pre>
      </section>
    </main>
  </body>
</html>
`;
}
