// Exit codes and the errors that carry them. Every failure the CLI reports says what went wrong
// (`message`) and what to do about it (`hint`); run() prints both and returns `exitCode`.
import type { ApiError, ValidationIssue } from '@agentplane/control-plane';

/** The exit codes, as documented in the README and in `agentplane --help`. */
export const EXIT = {
  /** Deployed (or, for the other commands, done). */
  OK: 0,
  /** The revision failed; or the control plane could not be reached or answered an unexpected error. */
  FAILED: 1,
  /** The revision did not finish within --timeout. */
  TIMEOUT: 2,
  /** Usage error: a bad flag or argument, missing or refused credentials, a request the control plane refused as invalid (422). */
  USAGE: 3,
  /** The deployment, revision, sandbox pool or OAuth provider does not exist; or there is no revision to roll back to. */
  NOT_FOUND: 4,
  /** Interrupted (SIGINT) while waiting; the deployment was left as it was. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT] | 143;

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    readonly hint?: string,
    /** HTTP status of the answer that caused it, if any. */
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(EXIT.USAGE, message, hint);
  }
}

/** The abort reason the bin passes when a signal arrives: run() exits with `exitCode`. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
  constructor(
    readonly signalName: 'SIGINT' | 'SIGTERM' = 'SIGINT',
    readonly exitCode: ExitCode = signalName === 'SIGTERM' ? 143 : EXIT.INTERRUPTED,
  ) {
    super(`interrupted by ${signalName}`);
  }
}

/** Where a 422 issue's `loc` points, in the CLI's own terms (a flag or an argument). */
const FIELD_TO_FLAG: [RegExp, string][] = [
  [/^body\.name$/, '<name>'],
  [/^body\.source_revision_config\.image_uri$/, '--image'],
  [/^body\.source_revision_config\.repo_ref$/, '--ref'],
  [/^body\.source_revision_config\.graph_config_path$/, '--config-path'],
  [/^body\.source_config\.repo_url$/, '--repo-url'],
  [/^body\.source_config\.build_on_push$/, '--ref (a tag ref deploys with build_on_push false)'],
  [/^body\.secrets(\.\d+)?(\.(name|value))?$/, '--secret'],
  [/^path\.deployment_id$/, '<deployment>'],
  [/^path\.revision_id$/, '[revision]'],
  [/^path\.name$/, '<name>'],
  [/^path\.provider_id$/, '<id>'],
  [/^query\.name_contains$/, '<name>'],
  [/^query\.status$/, '--status'],
  [/^query\.type$/, '--type'],
  [/^query\.(limit|offset)$/, '--limit'],
];

export function flagForIssue(issue: ValidationIssue): string | undefined {
  const where = issue.loc.join('.');
  return FIELD_TO_FLAG.find(([pattern]) => pattern.test(where))?.[1];
}

/** The control plane's error answers, as CLI errors with the matching exit code and a hint. */
export function fromApiError(error: ApiError, baseUrl: string): CliError {
  const { detail } = error;
  switch (error.status) {
    case 401:
    case 403:
      return new CliError(
        EXIT.USAGE,
        `the control plane at ${baseUrl} refused the credentials (${error.status}): ${detail}`,
        'check --api-key / AGENTPLANE_API_KEY (or --bearer-token / --tenant-id): the key must be valid for this control plane and tenant.',
        error.status,
      );
    case 404:
      return new CliError(
        EXIT.NOT_FOUND,
        detail,
        'check the ID or name (names are case-sensitive) and the tenant your credentials belong to.',
        404,
      );
    case 422: {
      const lines = error.issues.map((issue) => {
        const flag = flagForIssue(issue);
        return `  ${flag ? `${flag} (${issue.loc.join('.')})` : issue.loc.join('.')}: ${issue.msg}`;
      });
      return new CliError(
        EXIT.USAGE,
        `the control plane refused the request as invalid (422):\n${lines.join('\n') || `  ${detail}`}`,
        'fix the value named above and run the command again.',
        422,
      );
    }
    default:
      return new CliError(
        EXIT.FAILED,
        `the control plane at ${baseUrl} answered ${error.status}: ${detail}`,
        error.status === 429 || error.status >= 500 ? 'the control plane is overloaded or failing; try again in a few minutes.' : undefined,
        error.status,
      );
  }
}

/** A fetch that failed before any answer (DNS, refused connection, TLS...). */
export function fromNetworkError(error: unknown, baseUrl: string): CliError {
  const cause =
    error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
  return new CliError(
    EXIT.FAILED,
    `could not reach the control plane at ${baseUrl}: ${cause}`,
    'check --base-url / AGENTPLANE_BASE_URL and your network; the URL is the control plane root, without /v2.',
  );
}
