// Test helpers of the repository (vitest): the spec contract every API must pass, README examples
// type-checked against the built packages (and a section's blocks, for tests that run them), free
// ports, canned JSON answers, a proxy that answers chosen requests itself.
export { freePort } from '../free-port.js';
export { type InterceptingProxy, startInterceptingProxy } from './intercepting-proxy.js';
export { readmeExamples, readmeSectionBlocks, typecheckReadmeExamples } from './readme-examples.js';
export { json } from './responses.js';
export { describeSpecContract, type ExpectedOperation } from './spec-contract.js';
