// A stricter view of openapi-fetch's client type. openapi-fetch infers each call's `init` as a
// type parameter, and an inferred argument escapes TypeScript's excess-property check: a
// misspelt body field (`sortBy` for `sort_by`) compiles. Here `init` is computed from the path
// and method instead of inferred, so object literals are checked field by field. The runtime
// object is openapi-fetch's own; only its type is narrowed.
import type { Client, FetchOptions, FetchResponse, Middleware } from 'openapi-fetch';
import type { FilterKeys, HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';

type Options<Operation> = FetchOptions<Operation>;
/** `init` is optional exactly when the operation has no required parameter or body. */
type InitArgs<Operation> = RequiredKeysOf<Options<Operation>> extends never ? [init?: Options<Operation>] : [init: Options<Operation>];

// biome-ignore lint/suspicious/noExplicitAny: openapi-fetch constrains path maps to Record<string, any>; a generated `paths` interface has no index signature, so `unknown` would not fit.
export type StrictMethod<Paths extends Record<string, any>, Method extends HttpMethod> = <Path extends PathsWithMethod<Paths, Method>>(
  url: Path,
  ...init: InitArgs<FilterKeys<Paths[Path], Method>>
) => Promise<FetchResponse<FilterKeys<Paths[Path], Method>, Options<FilterKeys<Paths[Path], Method>>, 'application/json'>>;

// biome-ignore lint/suspicious/noExplicitAny: openapi-fetch constrains path maps to Record<string, any>; a generated `paths` interface has no index signature, so `unknown` would not fit.
export interface StrictClient<Paths extends Record<string, any>> {
  GET: StrictMethod<Paths, 'get'>;
  POST: StrictMethod<Paths, 'post'>;
  PUT: StrictMethod<Paths, 'put'>;
  PATCH: StrictMethod<Paths, 'patch'>;
  DELETE: StrictMethod<Paths, 'delete'>;
  /** Register middleware. */
  use(...middleware: Middleware[]): void;
  /** Unregister middleware. */
  eject(...middleware: Middleware[]): void;
}

/** Narrows an openapi-fetch client to the strict call signatures. */
// biome-ignore lint/suspicious/noExplicitAny: openapi-fetch constrains path maps to Record<string, any>; a generated `paths` interface has no index signature, so `unknown` would not fit.
export function strict<Paths extends Record<string, any>>(client: Client<Paths>): StrictClient<Paths> {
  return client as unknown as StrictClient<Paths>;
}
