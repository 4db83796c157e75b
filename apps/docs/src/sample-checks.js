// The build's proof that the code samples cannot drift from the contract: every TypeScript sample
// is type-checked by `tsc --noEmit` against the built client packages, as a user's project would
// import them (a misspelt body field, a wrong path or a parameter the operation does not take is
// a compile error, decision K4), and every CLI sample is read back as the shell would read it and
// parsed by the CLI's own parser (an unknown flag or a missing argument is a usage error).
// Either kind of failure fails the build, naming the operation.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseCommandLine } from '@agentplane/cli';
import { REPO_ROOT } from '@agentplane/openapi-toolkit';
import { SAMPLE_KINDS } from './code-samples.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** @typedef {{api: string, operations: import('./code-samples.js').OperationSamples[]}} ApiSamples */

/**
 * Checks every sample of these APIs; throws one error listing every problem.
 * @param {ApiSamples[]} apis
 * @param {string} dir where the TypeScript samples are written (inside the repository, so that the packages resolve)
 */
export async function checkCodeSamples(apis, dir) {
  const problems = [...checkCliSamples(apis), ...(await typecheckSamples(apis, dir))];
  if (problems.length > 0) throw new Error(`code samples that would not work as shown:\n${problems.map((p) => `  ${p}`).join('\n')}`);
}

/**
 * Writes each TypeScript sample to `<dir>/<api>/<operationId>.ts` and runs `tsc --noEmit` over
 * them with the repository's compiler options; returns tsc's diagnostics, empty when all compile.
 * @param {ApiSamples[]} apis
 * @param {string} dir
 * @returns {Promise<string[]>}
 */
export async function typecheckSamples(apis, dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const { api, operations } of apis) {
    fs.mkdirSync(path.join(dir, api), { recursive: true });
    for (const { operationId, samples } of operations) {
      const sample = samples.find((s) => s.label === SAMPLE_KINDS.typescript.label);
      if (!sample) throw new Error(`${api} ${operationId}: no TypeScript sample`);
      fs.writeFileSync(path.join(dir, api, `${operationId}.ts`), `${sample.source}\n`);
    }
  }
  const tsconfig = {
    extends: path.relative(dir, path.join(REPO_ROOT, 'tsconfig.base.json')),
    compilerOptions: { noEmit: true },
    include: ['**/*.ts'],
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  try {
    await run(process.execPath, [require.resolve('typescript/bin/tsc'), '--noEmit', '--pretty', 'false', '-p', dir], { cwd: dir });
    return [];
  } catch (error) {
    const output = /** @type {{stdout?: string, stderr?: string, message: string}} */ (error);
    const lines = `${output.stdout ?? ''}${output.stderr ?? ''}`.split('\n').filter((line) => line.trim() !== '');
    return lines.length > 0 ? lines : [output.message];
  }
}

/**
 * Reads each CLI sample back into its words and parses them with the CLI's parser.
 * @param {ApiSamples[]} apis
 * @returns {string[]} the problems, empty when every sample parses
 */
export function checkCliSamples(apis) {
  return apis.flatMap(({ api, operations }) =>
    operations.flatMap(({ operationId, samples, argv }) => {
      const sample = samples.find((s) => s.label === SAMPLE_KINDS.cli.label);
      if (!sample) return [];
      try {
        const words = shellWords(sample.source);
        if (words[0] !== 'agentplane') throw new Error(`it runs ${JSON.stringify(words[0])}, not agentplane`);
        if (JSON.stringify(words.slice(1)) !== JSON.stringify(argv))
          throw new Error(`it shows ${JSON.stringify(words)}, not the command line ${JSON.stringify(argv)}`);
        parseCommandLine(words.slice(1));
        return [];
      } catch (error) {
        return [`${api} ${operationId} (agentplane CLI): ${error instanceof Error ? error.message : String(error)}`];
      }
    }),
  );
}

/**
 * The words of a one-command shell script as the shell splits them: comment lines and line
 * continuations, bare words and single-quoted ones. Anything else (variables, double quotes,
 * pipes) is refused, since a CLI sample has no use for it.
 * @param {string} script
 * @returns {string[]}
 */
export function shellWords(script) {
  const text = script
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const words = [];
  for (const match of text.matchAll(/(?:[\w@%+=:,./-]+|'[^']*'|\\')+|(\S)/g)) {
    if (match[1] !== undefined) throw new Error(`the shell would read ${JSON.stringify(match[1])} specially`);
    words.push(match[0].replace(/'([^']*)'|\\'/g, (quoted, inner) => (quoted === "\\'" ? "'" : inner)));
  }
  return words;
}
