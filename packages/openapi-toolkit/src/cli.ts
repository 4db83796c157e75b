// `agentplane-spec <command> <api>`: what the packages' turbo tasks run.
//   lint <api>    lint the split spec with redocly.yaml's rules (zero problems is the bar)
//   build <api>   bundle it and generate its TypeScript types into the client package
//   contract <api> --out <file>
//                 the facts a client acts on (contract-module.ts), for a tool built on a client
//   server-artifacts <api> --out <dir> [--dist <dir>]
//                 the operation table, server-view types and precompiled validators a server
//                 of the API needs (see server-artifacts.ts)
//   compat <api> [--release]
//                 the breaking-change gate: the bundle against its released baseline
//                 (compatibility/gate.ts); --release requires every change to be declared
//   release [--out <dir>]
//                 version, build, gate, pack, publish --dry-run, new baselines (release/release.ts)
import { parseArgs } from 'node:util';
import { API_NAMES } from './apis.js';
import { buildApi, writeFile } from './build-spec.js';
import { checkCompatibility, formatReport } from './compatibility/gate.js';
import { renderContractModule } from './contract-module.js';
import { loadBundle } from './document.js';
import { lintApi } from './lint-spec.js';
import { writeServerArtifacts } from './server-artifacts.js';

const USAGE = `usage: agentplane-spec lint <api> | build <api> | contract <api> --out <file> | server-artifacts <api>... --out <dir> [--dist <dir>]
       agentplane-spec compat <api> [--release] | release [--out <dir>]
apis: ${API_NAMES.join(', ')}
`;

export async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: 'string' }, dist: { type: 'string' }, release: { type: 'boolean' } },
  });
  const [command, ...apis] = positionals;
  if (command === 'release' && apis.length === 0) {
    const { release } = await import('./release/release.js');
    try {
      return await release({ outDir: values.out });
    } catch (error) {
      // A failed step (a build, npm) has printed its own output; say which step stopped the release.
      process.stderr.write(`release: stopped: ${(error as Error).message}\n`);
      return 1;
    }
  }
  const api = apis[0];
  if (!api || apis.some((name) => !API_NAMES.includes(name))) {
    process.stderr.write(USAGE);
    return 2;
  }
  switch (command) {
    case 'contract':
      if (!values.out) break;
      writeFile(values.out, renderContractModule(loadBundle(api)));
      return 0;
    case 'server-artifacts':
      if (!values.out) break;
      for (const name of apis) await writeServerArtifacts(name, values.out, values.dist);
      return 0;
    case 'lint':
      return (await lintApi(api)) === 0 ? 0 : 1;
    case 'build':
      await buildApi(api);
      return 0;
    case 'compat': {
      const report = await checkCompatibility(api, values.release ? 'release' : 'change');
      const text = formatReport(report);
      (report.problems.length > 0 ? process.stderr : process.stdout).write(`${text}\n`);
      return report.problems.length > 0 ? 1 : 0;
    }
  }
  process.stderr.write(USAGE);
  return 2;
}
