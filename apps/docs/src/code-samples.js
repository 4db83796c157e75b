// Code samples for every operation of the Redoc reference, generated at build time from the spec's
// own named examples: curl, the typed client and, where a command performs the operation, the
// `agentplane` CLI (which command, and with which arguments, the CLI package says). Nothing in a
// sample is made up: path and query values are the parameters' examples, the body is the
// operation's first named request example (the one Prism serves by default), and an operation
// that lacks an example a sample needs fails the build. The samples go into the docs' copy of
// the bundle as Redoc's `x-codeSamples`, never into the published bundles; sample-checks.js
// type-checks and parses them before a page is built.
import { commandForRequest } from '@agentplane/cli';
import { getPointer, listOperations, resolveRef } from '@agentplane/openapi-toolkit';

/**
 * @typedef {{lang: string, label: string, source: string}} CodeSample
 * @typedef {import('@agentplane/openapi-toolkit').OpenApiDocument} OpenApiDocument
 * @typedef {import('@agentplane/openapi-toolkit').ListedOperation} ListedOperation
 * @typedef {{path: Record<string, unknown>, query: Record<string, unknown>, body?: unknown}} ExampleRequest
 * @typedef {object} OperationSamples
 * @property {string} operationId
 * @property {string} pointer JSON pointer of the operation in the bundle
 * @property {ExampleRequest} request the request every sample of the operation makes
 * @property {CodeSample[]} samples curl, TypeScript and, where a command performs the operation, the CLI
 * @property {string[]} [argv] the CLI sample's arguments after `agentplane`
 */

/** The kinds of sample, in tab order: Redoc tells them apart by label, and highlights by `lang`. */
export const SAMPLE_KINDS = {
  curl: { lang: 'bash', label: 'curl' },
  typescript: { lang: 'TypeScript', label: 'TypeScript' },
  cli: { lang: 'bash', label: 'agentplane CLI' },
};

/**
 * @typedef {object} SampleSettings
 * @property {string} clientPackage the typed client's package
 * @property {string} factory its client factory
 * @property {string} urlVariable the environment variable with the API's root URL
 * @property {string} keyVariable the environment variable with the API key
 * @property {boolean} cli whether `agentplane` commands perform operations of this API
 */

/**
 * Per API. The control plane's variables are those the CLI reads, so one environment serves the
 * three samples.
 * @type {Record<string, SampleSettings>}
 */
export const SAMPLE_SETTINGS = {
  'control-plane': {
    clientPackage: '@agentplane/control-plane',
    factory: 'createControlPlaneClient',
    urlVariable: 'AGENTPLANE_BASE_URL',
    keyVariable: 'AGENTPLANE_API_KEY',
    cli: true,
  },
  'agent-server': {
    clientPackage: '@agentplane/agent-server',
    factory: 'createAgentServerClient',
    urlVariable: 'AGENTPLANE_AGENT_SERVER_URL',
    keyVariable: 'AGENTPLANE_AGENT_SERVER_API_KEY',
    cli: false,
  },
};

/** Longest line a sample is written on before it is broken up: what Redoc's right panel shows without scrolling. */
const WIDTH = 56;

/**
 * The samples of every operation of one API's bundle.
 * @param {string} api
 * @param {OpenApiDocument} spec
 * @returns {OperationSamples[]}
 */
export function generateCodeSamples(api, spec) {
  const settings = SAMPLE_SETTINGS[api];
  if (!settings) throw new Error(`no code sample settings for the API "${api}"`);
  return listOperations(spec).map((listed) => {
    const where = `${api} ${listed.operationId}`;
    const request = exampleRequest(spec, listed, where);
    const credential = apiKeyCredential(spec, listed, where);
    // Redoc lets the reader pick another request example above the samples, which stay the same.
    const example = chosenExample(spec, listed);
    const about = example ? [`Example: ${example}`] : [];
    const samples = [
      { ...SAMPLE_KINDS.curl, source: [...comment('#', about), curlSample(settings, spec, listed, request, credential)].join('\n') },
      {
        ...SAMPLE_KINDS.typescript,
        source: [...comment('//', about), typescriptSample(settings, spec, listed, request, credential)].join('\n'),
      },
    ];
    const deploymentName = answeredDeploymentName(spec, listed);
    const command = settings.cli ? commandForRequest(listed.operationId, request, deploymentName ? { deploymentName } : {}) : undefined;
    if (command) samples.push({ ...SAMPLE_KINDS.cli, source: cliSample(command, about) });
    return { operationId: listed.operationId, pointer: listed.pointer, request, samples, ...(command ? { argv: command.argv } : {}) };
  });
}

/**
 * A copy of the bundle with each operation's samples as its `x-codeSamples`.
 * @param {OpenApiDocument} spec
 * @param {OperationSamples[]} operations
 * @returns {OpenApiDocument}
 */
export function withCodeSamples(spec, operations) {
  const copy = structuredClone(spec);
  for (const { pointer, samples } of operations) getPointer(copy, pointer)['x-codeSamples'] = samples;
  return copy;
}

/**
 * The request the samples make, from the examples of the operation's parameters and body.
 * @param {OpenApiDocument} spec @param {ListedOperation} listed @param {string} where
 * @returns {ExampleRequest}
 */
function exampleRequest(spec, listed, where) {
  /** @type {ExampleRequest} */
  const request = { path: {}, query: {} };
  for (const parameter of listed.parameters) {
    const value = parameterExample(spec, parameter);
    const name = `${parameter.in} parameter ${parameter.name}`;
    if (parameter.in === 'path' || parameter.in === 'query') {
      if (value === undefined && parameter.required) throw new Error(`${where}: the required ${name} has no example for the code samples`);
      // An optional query parameter shows only when its example says something its default does not.
      const schema = resolveRef(spec, parameter.schema ?? {});
      if (value !== undefined && (parameter.required || JSON.stringify(value) !== JSON.stringify(schema.default))) {
        request[parameter.in === 'path' ? 'path' : 'query'][parameter.name] = value;
      }
    } else if (parameter.required) {
      throw new Error(`${where}: the code samples cannot send the required ${name}`);
    }
  }
  if (listed.operation.requestBody) {
    const body = resolveRef(spec, listed.operation.requestBody);
    const media = body.content?.['application/json'];
    const examples = Object.values(media?.examples ?? {});
    if (examples.length > 0) request.body = resolveRef(spec, examples[0]).value;
    else if (media && 'example' in media) request.body = media.example;
    else if (body.required) throw new Error(`${where}: the request body has no named example for the code samples`);
  }
  return request;
}

/**
 * What the request example the samples use is called, when the operation has more than one.
 * @param {OpenApiDocument} spec @param {ListedOperation} listed
 * @returns {string | undefined}
 */
function chosenExample(spec, listed) {
  const examples = Object.entries(resolveRef(spec, listed.operation.requestBody ?? {})?.content?.['application/json']?.examples ?? {});
  if (examples.length < 2) return undefined;
  const [name, example] = /** @type {[string, unknown]} */ (examples[0]);
  return resolveRef(spec, example).summary ?? name;
}

/**
 * A parameter's example: its own (`example`, or the first of `examples`), else its schema's.
 * @param {OpenApiDocument} spec @param {any} parameter
 * @returns {unknown}
 */
function parameterExample(spec, parameter) {
  if ('example' in parameter) return parameter.example;
  const named = Object.values(parameter.examples ?? {});
  if (named.length > 0) return resolveRef(spec, named[0]).value;
  const schema = resolveRef(spec, parameter.schema ?? {});
  return Array.isArray(schema.examples) ? schema.examples[0] : schema.example;
}

/**
 * The header API key the operation takes (its first security alternative that names one), and
 * whether it may be left out (an empty alternative). Each sample sends it: it is what a server
 * configured to require a key needs, and one that does not require it lets it through.
 * @param {OpenApiDocument} spec @param {ListedOperation} listed @param {string} where
 * @returns {{header: string, optional: boolean} | undefined}
 */
function apiKeyCredential(spec, listed, where) {
  /** @type {Record<string, string[]>[]} */
  const alternatives = listed.operation.security ?? spec.security ?? [];
  const named = alternatives.find((alternative) => Object.keys(alternative).length > 0);
  if (!named) return undefined;
  const schemeName = Object.keys(named)[0] ?? '';
  const scheme = resolveRef(spec, spec.components.securitySchemes?.[schemeName]);
  if (Object.keys(named).length > 1 || scheme?.type !== 'apiKey' || scheme.in !== 'header') {
    throw new Error(`${where}: the code samples send one API key header; the first credential is ${JSON.stringify(named)}`);
  }
  return { header: scheme.name, optional: alternatives.some((alternative) => Object.keys(alternative).length === 0) };
}

/**
 * The name of the deployment an operation answers with, in its first success example: `deploy`
 * finds deployments by name, which an update request does not carry.
 * @param {OpenApiDocument} spec @param {ListedOperation} listed
 * @returns {string | undefined}
 */
function answeredDeploymentName(spec, listed) {
  const [, success] = Object.entries(listed.operation.responses ?? {}).find(([status]) => /^2/.test(status)) ?? [];
  const media = resolveRef(spec, success ?? {}).content?.['application/json'];
  if (media?.schema?.$ref !== '#/components/schemas/Deployment') return undefined;
  const [example] = Object.values(media.examples ?? {});
  const name = example ? resolveRef(spec, example).value?.name : undefined;
  return typeof name === 'string' ? name : undefined;
}

/**
 * @param {SampleSettings} settings @param {OpenApiDocument} spec @param {ListedOperation} listed
 * @param {ExampleRequest} request @param {{header: string, optional: boolean} | undefined} credential
 */
function curlSample(settings, spec, listed, request, credential) {
  const path = listed.path.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(String(request.path[name])));
  const query = new URLSearchParams(Object.entries(request.query).map(([name, value]) => [name, String(value)])).toString();
  // -N: print a stream's events as they come instead of buffering them.
  const noBuffer = isStream(spec, listed) ? ' -N' : '';
  const lines = [`curl${noBuffer} -X ${listed.method.toUpperCase()} "$${settings.urlVariable}${path}${query ? `?${query}` : ''}"`];
  if (credential) lines.push(`-H "${credential.header}: $${settings.keyVariable}"`);
  if (request.body !== undefined)
    lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(request.body, null, 2))}`);
  return lines.join(' \\\n  ');
}

/**
 * Whether the operation answers a stream of events (`text/event-stream`).
 * @param {OpenApiDocument} spec @param {ListedOperation} listed
 */
function isStream(spec, listed) {
  return Object.entries(listed.operation.responses ?? {}).some(
    ([status, response]) => /^2/.test(status) && resolveRef(spec, response).content?.['text/event-stream'],
  );
}

/**
 * @param {SampleSettings} settings @param {OpenApiDocument} spec @param {ListedOperation} listed
 * @param {ExampleRequest} request @param {{header: string, optional: boolean} | undefined} credential
 */
function typescriptSample(settings, spec, listed, request, credential) {
  const options = [`baseUrl: process.env.${settings.urlVariable} ?? ''`];
  if (credential) options.push(`apiKey: process.env.${settings.keyVariable}${credential.optional ? '' : " ?? ''"}`);
  /** @type {Record<string, unknown>} */
  const params = {};
  if (Object.keys(request.path).length > 0) params.path = request.path;
  if (Object.keys(request.query).length > 0) params.query = request.query;
  /** @type {Record<string, unknown>} */
  const init = {};
  if (Object.keys(params).length > 0) init.params = params;
  if (request.body !== undefined) init.body = request.body;
  // A stream (text/event-stream) is read as it comes, not parsed as JSON.
  const streams = isStream(spec, listed);
  if (streams) init.parseAs = 'stream';
  const hasData =
    !streams &&
    Object.entries(listed.operation.responses ?? {}).some(
      ([status, response]) => /^2/.test(status) && resolveRef(spec, response).content?.['application/json'],
    );
  const call = `const { ${hasData ? 'data, ' : ''}error, response } = await client.${listed.method.toUpperCase()}(${tsLiteral(listed.path, 0)}`;
  const success = streams
    ? [
        '} else if (response.body) {',
        '  // The events as they come (event:, data:, id: lines); see RunStreamEvent.',
        '  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();',
        '  for (let read = await reader.read(); !read.done; read = await reader.read()) process.stdout.write(read.value);',
      ]
    : ['} else {', hasData ? '  console.log(data);' : `  console.log(response.status); // no body`];
  return [
    `import { ${settings.factory} } from '${settings.clientPackage}';`,
    '',
    `const client = ${settings.factory}({`,
    ...options.map((option) => `  ${option},`),
    '});',
    '',
    Object.keys(init).length > 0 ? `${call}, ${tsLiteral(init, 0, call.length + 2)});` : `${call});`,
    'if (error) {',
    `  console.error(\`${listed.operationId} failed with \${response.status}:\`, error.detail);`,
    ...success,
    '}',
  ].join('\n');
}

/** @param {import('@agentplane/cli').RequestCommand} command @param {string[]} about */
function cliSample(command, about) {
  const notes = [...about, `Reads ${listing(command.env)} from the environment.`];
  if (command.unsupported.length > 0) {
    notes.push(
      `The CLI has no flag for ${listing(command.unsupported)}, so its request leaves ${command.unsupported.length > 1 ? 'them' : 'it'} out.`,
    );
  }
  const lines = comment('#', notes);
  const words = command.argv.map(shellQuote);
  const oneLine = `agentplane ${words.join(' ')}`;
  if (oneLine.length <= WIDTH) return [...lines, oneLine].join('\n');
  // One flag (with its value) per line, the command and its arguments on the first.
  const parts = [`agentplane ${words.filter((_, i) => i < firstFlag(command.argv)).join(' ')}`];
  for (let i = firstFlag(command.argv); i < words.length; i++) {
    if (command.argv[i]?.startsWith('--')) parts.push(words[i] ?? '');
    else parts[parts.length - 1] += ` ${words[i]}`;
  }
  return [...lines, parts.join(' \\\n  ')].join('\n');
}

/** @param {string[]} argv */
function firstFlag(argv) {
  const index = argv.findIndex((word) => word.startsWith('--'));
  return index < 0 ? argv.length : index;
}

/** @param {string[]} items */
function listing(items) {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? '');
}

/**
 * Comment lines, each note wrapped on its own.
 * @param {string} marker `#` or `//` @param {string[]} notes
 */
function comment(marker, notes) {
  return notes.flatMap((note) => {
    const lines = [''];
    for (const word of note.split(' ')) {
      const line = lines[lines.length - 1] ?? '';
      if (line !== '' && marker.length + 1 + line.length + 1 + word.length > WIDTH) lines.push(word);
      else lines[lines.length - 1] = line === '' ? word : `${line} ${word}`;
    }
    return lines.map((line) => `${marker} ${line}`);
  });
}

/**
 * A word as the shell reads it back: bare when nothing in it is special, else single-quoted.
 * @param {string} word
 */
export function shellQuote(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A JSON value as a TypeScript literal in the repository's style (single quotes, bare keys,
 * trailing commas): on one line when that fits from `column` on, else one entry per line.
 * @param {unknown} value
 * @param {number} indent the indentation of the line the literal starts on
 * @param {number} [column] where on that line it starts
 * @returns {string}
 */
export function tsLiteral(value, indent, column = indent) {
  if (typeof value === 'string') return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  /** @type {[string, unknown][]} */
  const entries = Array.isArray(value)
    ? value.map((item) => ['', item])
    : Object.entries(value).map(([key, item]) => [/^[A-Za-z_$][\w$]*$/.test(key) ? `${key}: ` : `${tsLiteral(key, 0)}: `, item]);
  if (entries.length === 0) return Array.isArray(value) ? '[]' : '{}';
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{ ', ' }'];
  const inline = `${open}${entries.map(([key, item]) => `${key}${tsLiteral(item, 0, -Infinity)}`).join(', ')}${close}`;
  // Two more characters for what follows the literal on its line: `,` or `);`.
  if (column + inline.length + 2 <= WIDTH && !inline.includes('\n')) return inline;
  const pad = ' '.repeat(indent + 2);
  const lines = entries.map(([key, item]) => `${pad}${key}${tsLiteral(item, indent + 2, indent + 2 + key.length)},`);
  return `${open.trim()}\n${lines.join('\n')}\n${' '.repeat(indent)}${close.trim()}`;
}
