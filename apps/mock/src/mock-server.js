// One API's mock as users reach it: a Prism process on a private port, and in front of it the
// validation translator (decision T3) on the public port. The launcher (`agentplane-mock`,
// `npm run mock`) and the contract tests both start mocks this way, so the tests check what users get.
import { jsonMediaTypes, mockSpecPath, queryBooleans } from './mocks.js';
import { privatePort, startPrism } from './prism.js';
import { startValidationTranslator } from './validation-translator.js';

/**
 * @typedef {object} MockServer
 * @property {string} url the public base URL
 * @property {import('node:child_process').ChildProcess} child the Prism process
 * @property {() => Promise<void>} stop
 */

/**
 * @param {{api: string, port: number, host?: string, verbose?: string, stdio?: 'inherit' | 'pipe'}} options
 * @returns {Promise<MockServer>}
 */
export async function startMock({ api, port, host = '127.0.0.1', verbose, stdio }) {
  const booleans = queryBooleans(api);
  const prism = await startPrism({
    specPath: mockSpecPath(api),
    port: await privatePort(host),
    host,
    ...(verbose ? { verbose } : {}),
    ...(stdio ? { stdio } : {}),
  });
  let front;
  try {
    front = await startValidationTranslator({ upstream: prism.url, port, host, booleans, jsonMediaTypes: jsonMediaTypes(api) });
  } catch (error) {
    await prism.stop();
    throw new Error(`cannot serve the ${api} mock on ${host}:${port}: ${/** @type {Error} */ (error).message}`);
  }
  const { port: bound } = /** @type {import('node:net').AddressInfo} */ (front.address());
  return {
    url: `http://${host}:${bound}`,
    child: prism.child,
    stop: async () => {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(() => resolve(undefined)));
      await prism.stop();
    },
  };
}
