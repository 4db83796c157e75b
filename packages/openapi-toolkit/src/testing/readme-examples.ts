// Type-checks the ```ts blocks of a package README against the built package, as a user would
// import it, so the documented examples cannot drift from the real API.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../apis.js';

/** Returns the README's TypeScript blocks. */
export function readmeExamples(packageDir: string): string[] {
  const readme = fs.readFileSync(path.join(packageDir, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/**
 * The fenced blocks of one language (```ts, ```python, ...) in a README's `## <heading>` section,
 * up to the next `## ` heading, in order: the examples a test writes into a project and runs.
 */
export function readmeSectionBlocks(readmeFile: string, heading: string, lang: string): string[] {
  const lines = fs.readFileSync(readmeFile, 'utf8').split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`${readmeFile}: no "## ${heading}" section`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => line.startsWith('## '));
  const body = (end < 0 ? rest : rest.slice(0, end)).join('\n');
  return [...body.matchAll(new RegExp(`^\`\`\`${lang}\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]!);
}

/** Type-checks each block as its own ES module; returns the diagnostics, empty when all compile. */
export function typecheckReadmeExamples(packageDir: string): string[] {
  const dir = path.join(packageDir, '.readme-examples');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const files = readmeExamples(packageDir).map((code, i) => {
    const file = path.join(dir, `example-${i + 1}.ts`);
    fs.writeFileSync(file, `${code}\nexport {};\n`);
    return file;
  });
  const base = ts.readConfigFile(path.join(REPO_ROOT, 'tsconfig.base.json'), ts.sys.readFile).config;
  const { options } = ts.convertCompilerOptionsFromJson(base.compilerOptions, REPO_ROOT);
  const program = ts.createProgram(files, { ...options, noEmit: true, noUnusedLocals: false });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return diagnostics.map((d) => {
    const where =
      d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
