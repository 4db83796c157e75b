#!/usr/bin/env node
// The `agentplane-mock` executable (decision P6): committed, so that npm links it at install
// time; the program is src/cli.js. It exits once both mocks have stopped.
import { main } from '../src/cli.js';

process.exit(await main(process.argv.slice(2)));
