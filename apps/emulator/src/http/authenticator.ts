// Credential checks driven by each operation's `security` alternatives: the first alternative
// whose schemes were all presented and all resolve to the same principal wins. `{}` lets an
// anonymous caller in, unless the API is configured to require credentials. An operation whose
// `security` is empty (`[]`, as OpenAPI writes "no security") needs none, whatever the API's
// configuration: a health check (GET /ok) is answered without credentials.
import type { SecurityRequirement } from '../contract/api-contract.js';

/** The credentials a request presented, keyed by security scheme name. */
export type Credentials = Record<string, string>;

export interface Authenticator<Principal> {
  /**
   * Given the operation's alternatives and the credentials presented, the caller's principal,
   * or the 401 reason. `{}` among the alternatives lets anonymous callers in, unless the
   * authenticator was configured to require credentials.
   */
  authenticate(security: readonly SecurityRequirement[], credentials: Credentials): { principal: Principal } | { reason: string };
}

export interface SchemeResolver<Principal> {
  /** How the credential travels, for the 401 message: `X-Api-Key header`. */
  carrier: string;
  /** The principal the credential belongs to, or undefined when it is not valid. */
  resolve(value: string): Principal | undefined;
  invalidMessage: string;
}

export function createAuthenticator<Principal>(options: {
  schemes: Record<string, SchemeResolver<Principal>>;
  anonymous: Principal;
  requireCredentials: boolean;
}): Authenticator<Principal> {
  return {
    authenticate(security: readonly SecurityRequirement[], credentials: Credentials) {
      if (security.length === 0) return { principal: options.anonymous };
      const alternatives = security;
      let invalid: string | undefined;
      for (const requirement of alternatives) {
        const names = Object.keys(requirement);
        if (names.length === 0) {
          if (!options.requireCredentials) return { principal: options.anonymous };
          continue;
        }
        if (!names.every((name) => name in credentials)) continue;
        const principals = names.map((name) => options.schemes[name]?.resolve(credentials[name]!));
        const first = principals[0];
        if (first !== undefined && principals.every((p) => p !== undefined && sameJson(p, first))) return { principal: first };
        invalid ??= options.schemes[names[principals.indexOf(undefined)] ?? names[0]!]?.invalidMessage;
      }
      if (invalid) return { reason: invalid };
      const carriers = alternatives.flatMap((r) => Object.keys(r)).map((name) => options.schemes[name]?.carrier ?? name);
      return { reason: carriers.length === 1 ? `Missing ${carriers[0]}.` : `Missing credentials: send one of ${carriers.join(', ')}.` };
    },
  };
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
