// The CLI scenarios against the in-memory fake control plane: once through an injected fetch,
// once over HTTP with the global fetch (as against a real server URL).
import { describe } from 'vitest';
import { describeCliScenarios } from './support/scenarios.js';
import { fakeFetchTarget, fakeHttpTarget } from './support/target.js';

describe('against the fake control plane (injected fetch)', () => describeCliScenarios(() => fakeFetchTarget()));
describe('against the fake control plane over HTTP (global fetch)', () => describeCliScenarios(() => fakeHttpTarget()));
