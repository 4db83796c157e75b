// The report for people and for CI systems: a progress line per check (and per 429 waited out),
// the summary table, and JUnit XML (one test suite per API, one test case per check; a check not
// served or skipped is a skipped test case, so CI shows it without failing the job).
import { RUN_TAG } from './checks/agent-server-session.js';
import type { CheckResult, ConformanceReport, RateLimitWait, Verdict } from './model.js';

const MARK: Record<Verdict, string> = { pass: '✔', fail: '✖', 'not served': '–', skipped: '·' };

/**
 * What a declared difference means, said where one is shown: the spec keeps a rule the LangGraph
 * JS server breaks on purpose. It explains a failure on that server; on any other, the failure
 * stands (the id only points to the paragraph that discusses the rule).
 */
export function langGraphNote(ids: readonly string[]): string {
  return `the spec declares the LangGraph JS server differs here: ${ids.join(', ')}`;
}

/** One line per finished check, for progress on stderr. */
export function progressLine(result: CheckResult): string {
  const difference = result.langGraphDifferences.length > 0 ? ` (${langGraphNote(result.langGraphDifferences)})` : '';
  const head = `${MARK[result.verdict]} ${result.api} ${result.area.padEnd(11)} ${result.id}: ${result.verdict}${difference}`;
  const lines = [head, ...result.findings.map((finding) => `    ${finding.message}`)];
  if (result.note && result.verdict !== 'pass') lines.push(`    ${result.note}`);
  return lines.join('\n');
}

/** The line progress shows when a 429 answer is waited out. */
export function rateLimitLine(wait: RateLimitWait): string {
  return `… ${wait.api} ${wait.operationId}: 429, waiting ${(wait.waitMs / 1000).toFixed(1)} s as Retry-After says (not a failure)`;
}

const LANGGRAPH_COLUMN = 'LANGGRAPH JS DIFFERS';

/**
 * The summary table: area, check, verdict, and for a failure the rule it enforces and, where the
 * spec declares the LangGraph JS server differs on that rule, that paragraph's id (a legend under
 * the table says what the column means, so that it is not read as "this server is LangGraph").
 */
export function summaryTable(report: ConformanceReport): string {
  // The column appears only when a result has an id in it.
  const marked = report.results.some((result) => result.verdict !== 'pass' && result.langGraphDifferences.length > 0);
  const rows = [['API', 'AREA', 'CHECK', 'RESULT', ...(marked ? [LANGGRAPH_COLUMN] : []), 'RULE (of a failure)']];
  for (const result of report.results) {
    rows.push([
      result.api,
      result.area,
      result.id,
      result.verdict,
      ...(marked ? [result.verdict !== 'pass' ? result.langGraphDifferences.join(', ') : ''] : []),
      result.verdict === 'fail' ? result.rule : '',
    ]);
  }
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  const table = rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  const { counts } = report;
  const verdict = report.interrupted
    ? 'interrupted'
    : report.ok
      ? 'every served operation conforms'
      : counts.fail > 0
        ? `${counts.fail} check(s) failed`
        : 'cleanup failed';
  const tagged = report.targets['agent-server'] ? ` (threads tagged metadata.${RUN_TAG} = ${report.runId})` : '';
  const cleanup = `cleanup: ${report.cleanup.deleted} of ${report.cleanup.created} created resource(s) deleted${tagged}${
    report.cleanup.failures.length > 0 ? `; not deleted: ${report.cleanup.failures.join(', ')}` : ''
  }`;
  return [
    ...table,
    ...(marked
      ? [
          '',
          `${LANGGRAPH_COLUMN}: the spec declares the LangGraph JS server differs on purpose on that rule ("Differs from the LangGraph JS`,
          'server" (`id`) in its description). On that server such a result is the known difference; on any other server it is a',
          'failure like the rest.',
        ]
      : []),
    '',
    `${counts.pass} pass, ${counts.fail} fail, ${counts['not served']} not served, ${counts.skipped} skipped: ${verdict}.`,
    cleanup,
    ...(report.rateLimited.answers > 0
      ? [
          `rate limited: waited out ${report.rateLimited.answers} 429 answer(s), ${(report.rateLimited.waitedMs / 1000).toFixed(1)} s in all, as Retry-After said (not counted as failures).`,
        ]
      : []),
    `Checked against ${Object.entries(report.specs)
      .map(([api, version]) => `${api} ${version}`)
      .join(', ')} in ${(report.durationMs / 1000).toFixed(1)} s.`,
  ].join('\n');
}

const escapeXml = (text: string) =>
  text
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    // XML 1.0 cannot carry control characters other than tab and newlines, even escaped.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** JUnit XML, as CI systems read it. */
export function junitXml(report: ConformanceReport): string {
  const suites = Object.keys(report.specs).map((api) => {
    const results = report.results.filter((result) => result.api === api);
    const failures = results.filter((result) => result.verdict === 'fail').length;
    const skipped = results.filter((result) => result.verdict === 'skipped' || result.verdict === 'not served').length;
    const cases = results.map((result) => {
      const open = `    <testcase classname="${escapeXml(`${api}.${result.area}`)}" name="${escapeXml(`${result.id}: ${result.title}`)}" time="${(result.durationMs / 1000).toFixed(3)}"`;
      if (result.verdict === 'pass') return `${open}/>`;
      if (result.verdict === 'fail') {
        const body = [
          `Rule: ${result.rule}`,
          ...(result.langGraphDifferences.length > 0 ? [`Note: ${langGraphNote(result.langGraphDifferences)}`] : []),
          ...result.findings.map((finding) => finding.message),
        ].join('\n');
        return `${open}>\n      <failure message="${escapeXml(result.findings[0]?.message ?? 'failed')}">${escapeXml(body)}</failure>\n    </testcase>`;
      }
      const note = result.langGraphDifferences.length > 0 ? ` (${langGraphNote(result.langGraphDifferences)})` : '';
      return `${open}>\n      <skipped message="${escapeXml(`${result.verdict}: ${result.note ?? ''}${note}`)}"/>\n    </testcase>`;
    });
    return `  <testsuite name="agentplane conformance: ${escapeXml(api)}" tests="${results.length}" failures="${failures}" skipped="${skipped}" timestamp="${report.startedAt}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="agentplane conformance">\n${suites.join('\n')}\n</testsuites>\n`;
}
