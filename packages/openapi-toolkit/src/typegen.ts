// How TypeScript types are generated from a spec: one function, used by the build and by the
// freshness test, so both always agree on the options.
import { pathToFileURL } from 'node:url';
import type { Config } from '@redocly/openapi-core';
import type { OpenAPITSOptions } from 'openapi-typescript';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/**
 * openapi-typescript options, and why:
 * - defaultNonNullable: false. A request field with a `default` (limit, sort_by, if_exists...)
 *   may be omitted; the default is the server's to apply, not a field the client must send.
 * - emptyObjectsUnknown: true. A schema that is only `type: object` is free-form, not an object
 *   that must stay empty (`Record<string, never>`).
 * - rootTypes, rootTypesNoSchemaPrefix, rootTypesKeepCasing: every schema is also exported under
 *   its component name (`Deployment`, `HTTPValidationError`), so the packages re-export the
 *   generator's aliases instead of listing them by hand.
 */
export const TYPEGEN_OPTIONS = {
  defaultNonNullable: false,
  emptyObjectsUnknown: true,
  rootTypes: true,
  rootTypesNoSchemaPrefix: true,
  rootTypesKeepCasing: true,
} satisfies OpenAPITSOptions;

/**
 * The server's view of the same types: a field with a `default` is always there, because the
 * server applies the default before a handler sees the request (decision E1).
 */
export const SERVER_TYPEGEN_OPTIONS = { ...TYPEGEN_OPTIONS, defaultNonNullable: true } satisfies OpenAPITSOptions;

/**
 * @param source the API's root openapi.yaml (absolute path), or a bundled document
 * @param redocly the loaded redocly.yaml (its lint rules apply)
 * @returns the content of the generated .ts file
 */
export async function generateTypes(
  source: string | object,
  redocly: Config,
  options: OpenAPITSOptions = TYPEGEN_OPTIONS,
): Promise<string> {
  const input = typeof source === 'string' ? pathToFileURL(source) : (source as Parameters<typeof openapiTS>[0]);
  const ast = await openapiTS(input, { ...options, redocly, silent: true });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}
