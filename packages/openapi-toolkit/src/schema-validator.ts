// A JSON Schema validator (Ajv, draft 2020-12 as OpenAPI 3.1 uses) for any schema of a document.
// Tests use it to check examples, mock and emulator answers against the contract, never a
// hand-copied schema.

import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { addFormats } from './ajv-formats.js';
import type { OpenApiDocument } from './document.js';
import { anchorRefs, DOCUMENT_ID } from './document.js';

export interface ValidationResult {
  valid: boolean;
  /** Ajv's errors as one line, empty when valid. */
  errors: string;
}

/** Checks a value against a schema given as a local pointer (`#/components/schemas/X`) or as a schema object taken from the document. */
export type SchemaValidator = (schema: string | object, value: unknown) => ValidationResult;

export function createValidator(spec: OpenApiDocument): SchemaValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictTypes: false, strictTuples: false });
  addFormats(ajv);
  // OpenAPI's own schema keywords, and the document's top-level fields (the whole document is
  // registered so that `#/components/...` references resolve): annotations, nothing to validate.
  // `x-` extensions in schemas (x-terminal) are the spec's own annotations too.
  const extensions =
    JSON.stringify(spec)
      .match(/"x-[A-Za-z0-9-]+"(?=:)/g)
      ?.map((key) => key.slice(1, -1)) ?? [];
  for (const keyword of new Set([
    'example',
    'discriminator',
    'xml',
    'externalDocs',
    ...extensions,
    ...Object.keys(spec).filter((k) => k !== '$id'),
  ])) {
    ajv.addKeyword({ keyword });
  }
  ajv.addSchema({ ...spec, $id: DOCUMENT_ID }, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  return (schema, value) => {
    const key = typeof schema === 'string' ? schema : JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(typeof schema === 'string' ? { $ref: `${DOCUMENT_ID}${schema}` } : anchorRefs(schema));
      compiled.set(key, validate);
    }
    const valid = validate(value) as boolean;
    return { valid, errors: valid ? '' : ajv.errorsText(validate.errors, { dataVar: 'value' }) };
  };
}
