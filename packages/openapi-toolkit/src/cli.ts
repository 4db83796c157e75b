// `agentplane-spec <command> <api>`: what the packages' turbo tasks run.
//   lint <api>    lint the split spec with redocly.yaml's rules (zero problems is the bar)
//   build <api>   bundle it and generate its TypeScript types into the client package
import { API_NAMES } from './apis.js';
import { buildApi } from './build-spec.js';
import { lintApi } from './lint-spec.js';

const USAGE = `usage: agentplane-spec <lint|build> <api>\napis: ${API_NAMES.join(', ')}\n`;

export async function main(argv: string[]): Promise<number> {
  const [command, api] = argv;
  if (!api || !API_NAMES.includes(api)) {
    process.stderr.write(USAGE);
    return 2;
  }
  switch (command) {
    case 'lint':
      return (await lintApi(api)) === 0 ? 0 : 1;
    case 'build':
      await buildApi(api);
      return 0;
    default:
      process.stderr.write(USAGE);
      return 2;
  }
}
