#!/usr/bin/env node
// `npm run bench [name...]`: runs every benchmark of this folder (*.bench.js) in turn, or those
// whose file name starts with a given name, and prints their figures.
// Benchmarks print measurements (and ratios against a baseline taken in the same run); they
// never pass or fail on timings, because the machines they run on are shared and noisy.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort();

for (const file of files) {
  const { title, run } = await import(pathToFileURL(path.join(dir, file)).href);
  console.log(`\n## ${title}\n`);
  await run();
}
