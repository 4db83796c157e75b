// How TypeScript types are generated from a spec: one function, used by the build and by the
// freshness test, so both always agree on the options.
import { pathToFileURL } from 'node:url';
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';

/**
 * openapi-typescript options, and why:
 * - defaultNonNullable: false. A request field with a `default` (limit, sort_by, if_exists...)
 *   may be omitted; the default is the server's to apply, not a field the client must send.
 * - emptyObjectsUnknown: true. A schema that is only `type: object` is free-form, not an object
 *   that must stay empty (`Record<string, never>`).
 * - rootTypes, rootTypesNoSchemaPrefix, rootTypesKeepCasing: every schema is also exported under
 *   its component name (`Deployment`, `HTTPValidationError`), so the packages re-export the
 *   generator's aliases instead of listing them by hand.
 * @type {import('openapi-typescript').OpenAPITSOptions}
 */
export const TYPEGEN_OPTIONS = {
  defaultNonNullable: false,
  emptyObjectsUnknown: true,
  rootTypes: true,
  rootTypesNoSchemaPrefix: true,
  rootTypesKeepCasing: true,
};

/**
 * @param {string} specRoot absolute path of the API's root openapi.yaml
 * @param {import('@redocly/openapi-core').Config} redocly the loaded redocly.yaml (its lint rules apply)
 * @returns {Promise<string>} the content of the generated .ts file
 */
export async function generateTypes(specRoot, redocly) {
  const ast = await openapiTS(pathToFileURL(specRoot), { ...TYPEGEN_OPTIONS, redocly, silent: true });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}
