import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeExamples, typecheckReadmeExamples } from '@agentplane/openapi-toolkit/testing';
import { expect, it } from 'vitest';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

it('README examples type-check against the built package', () => {
  expect(readmeExamples(packageDir).length).toBeGreaterThanOrEqual(2);
  expect(typecheckReadmeExamples(packageDir)).toEqual([]);
}, 180_000);
