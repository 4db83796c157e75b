// The conformance page shows every check from the checks' own definitions, and a sample report of
// a real run against the emulator, masked so that builds are repeatable.
import { checkCatalog } from '@agentplane/conformance';
import { describe, expect, it } from 'vitest';
import { maskReport, renderConformancePage, sampleConformanceReport } from '../src/conformance.js';
import { escapeHtml } from '../src/guide.js';

describe('the conformance page', () => {
  it('has one row per check of the catalogue, with its rule and operations, and the sample', () => {
    const checks = checkCatalog();
    const html = renderConformancePage({
      checks,
      sample: 'SAMPLE <table>',
      references: { 'agent-server': 'agent-server.html', 'control-plane': 'control-plane.html' },
    });
    expect([...html.matchAll(/<tr id="([^"]+)">/g)].map((m) => m[1])).toEqual(checks.map((c) => c.id));
    for (const check of checks) {
      const row = html.slice(html.indexOf(`<tr id="${check.id}">`)).split('</tr>')[0]!;
      expect(row, check.id).toContain(escapeHtml(check.rule));
      expect(row, check.id).toContain(escapeHtml(check.title));
      for (const operation of check.operations) expect(row, check.id).toContain(`<code>${operation}</code>`);
      if (check.langGraphDifference) expect(row, check.id).toContain(`<code>${check.langGraphDifference}</code>`);
    }
    expect(html).toContain('SAMPLE &lt;table&gt;');
    expect(html).toContain('href="./agent-server.html"');
  });

  it('samples a real run against the emulator: every check passes, the run id and duration masked', async () => {
    const sample = await sampleConformanceReport();
    for (const check of checkCatalog()) expect(sample).toMatch(new RegExp(`\\s${check.id}\\s+pass\\n`));
    expect(sample).toContain('every served operation conforms');
    expect(sample).toContain('metadata.agentplane_conformance_run = <run id>');
    expect(sample).toMatch(/ in <duration> s\.$/);
    expect(sample).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(await sampleConformanceReport()).toBe(sample);
    // Two whole conformance runs, 13 s each alone (6 s of it the heartbeat check's wait): the
    // limit only catches a hang, with room for CI's two cores running every suite at once.
  }, 240_000);

  it('masks run ids and the duration only', () => {
    expect(maskReport('a 3b7e9f1a-2c4d-4e6f-8a0b-1c2d3e4f5a6b b\nChecked against x in 12.3 s.')).toBe(
      'a <run id> b\nChecked against x in <duration> s.',
    );
  });
});
