// Durations (parsing --timeout/--interval, printing elapsed times) and plain-text layout.

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Parses `90s`, `20m`, `1h30m`, `500ms` or a bare number of seconds (`45`) into milliseconds.
 * Returns undefined for anything else.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1_000);
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(amount) * UNITS[unit!]!;
  return Math.round(total);
}

/** `0s`, `42s`, `3m 05s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1_000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** Columns padded to the widest cell; the last column is not padded. */
export function table(rows: string[][]): string {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `key   value` lines, keys padded to the widest. Undefined values are left out. */
export function keyValues(pairs: [string, string | undefined][]): string {
  const shown = pairs.filter((pair): pair is [string, string] => pair[1] !== undefined);
  const width = Math.max(...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `  ${key.padEnd(width)}  ${value}`).join('\n');
}

/** A revision ID shortened for humans (its first block), as git shortens commit hashes. */
export function shortId(id: string): string {
  return id.split('-')[0] ?? id;
}

/** A duration as a flag value that parseDuration reads back exactly: `1h`, `90m`, `45s`, `300ms`. */
export function durationFlag(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}
