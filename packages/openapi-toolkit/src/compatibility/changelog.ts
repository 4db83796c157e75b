// The API changes of a release in words, grouped by operation: what the version step adds to
// the client package's CHANGELOG.md under its new version, and what the docs show as not yet
// released.
import type { ClassifiedChange, Impact } from './policy.js';

export interface ApiChangeSummary {
  /** The released version the changes are counted from. */
  since: string;
  impact: Impact | 'none';
  changes: readonly ClassifiedChange[];
}

/** Markdown: one bullet per changed operation, one sub-bullet per change, breaking first. */
export function renderApiChanges({ since, impact, changes }: ApiChangeSummary): string {
  if (impact === 'none') return `No change to the API since ${since}.`;
  if (changes.length === 0) return `Descriptions and examples only: no operation changed since ${since}.`;
  const byOperation = new Map<string, ClassifiedChange[]>();
  for (const change of changes) {
    const key = change.operationId ? `\`${change.operation}\` (${change.operationId})` : `\`${change.operation}\``;
    byOperation.set(key, [...(byOperation.get(key) ?? []), change]);
  }
  const breaking = changes.filter((c) => c.impact === 'major').length;
  const lines = [`Compared with ${since}: ${byOperation.size} operation(s) changed, ${breaking} breaking change(s).`, ''];
  for (const [operation, list] of byOperation) {
    lines.push(`- ${operation}`);
    for (const change of [...list].sort((a, b) => (a.impact === b.impact ? 0 : a.impact === 'major' ? -1 : 1))) {
      lines.push(`  - ${change.impact === 'major' ? '**Breaking:** ' : ''}${change.text} (${change.id})`);
    }
  }
  return lines.join('\n');
}

/**
 * Puts an "API changes" section at the end of a version's section of a changesets CHANGELOG.md
 * (`## <version>` up to the next `## `). Running it twice for one version replaces the section.
 */
export function addApiChangesToChangelog(changelog: string, version: string, apiChanges: string): string {
  const lines = changelog.split('\n');
  const start = lines.indexOf(`## ${version}`);
  if (start < 0) throw new Error(`the changelog has no "## ${version}" section; run the version step first`);
  const next = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const end = next < 0 ? lines.length : next;
  const section = lines.slice(start, end);
  const existing = section.indexOf('### API changes');
  const kept = (existing < 0 ? section : section.slice(0, existing)).join('\n').trimEnd();
  const replaced = `${kept}\n\n### API changes\n\n${apiChanges.trimEnd()}\n`;
  const rest = lines.slice(end).join('\n');
  return [...lines.slice(0, start), replaced, ...(rest ? [rest] : [])].join('\n');
}
