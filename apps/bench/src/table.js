// The benchmarks' tables: each column as wide as its widest cell, names left-aligned and figures
// right-aligned, two spaces between columns.
import { fmtRate, perRequest } from './http-load.js';

/** @typedef {import('./http-load.js').Measurement} Measurement */

/**
 * Prints `header` and `rows`; the columns listed in `leftColumns` (names) are aligned left, the
 * others (figures) right.
 * @param {string[]} header @param {string[][]} rows @param {number[]} leftColumns
 */
export function printTable(header, rows, leftColumns) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const left = new Set(leftColumns);
  const line = (/** @type {string[]} */ cells) =>
    cells.map((c, i) => (left.has(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

/**
 * A server's CPU per request and its rate as a multiple of the LangGraph JS server's, as two
 * cells; both empty-handed for that server itself, whose pid is its CLI's, not the server
 * process's, so its CPU is not read.
 * @param {string} server @param {Measurement} measured @param {Measurement} langgraph
 */
export function cpuAndRatioCells(server, measured, langgraph) {
  if (server === 'LangGraph JS') return ['–', ''];
  return [`${fmtRate(perRequest(measured))} µs`, `${(measured.rps / langgraph.rps).toFixed(1)}×`];
}
