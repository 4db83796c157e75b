// Secrets on the command line: `--secret NAME=VALUE`, or `--secret NAME` with the value read from
// the CLI's own environment, so that it never appears in a command line or a CI log. Every value
// read is remembered on the context, and every log line the CLI prints has those values masked:
// a build log that echoes an environment variable must not put it in the job's output.
import type { Secret } from '@agentplane/control-plane';
import type { Context } from './context.js';
import { UsageError } from './errors.js';

const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Values shorter than this are not masked: masking `1` or `ok` would hide ordinary text, not a secret. */
const SHORTEST_MASKED = 4;

/** The secrets of the --secret flags, by name, each value read and remembered for masking; undefined without any. */
export function secretFlags(ctx: Context): Map<string, string> | undefined {
  const given = ctx.list('secret');
  if (given.length === 0) return undefined;
  const secrets = new Map<string, string>();
  for (const item of given) {
    const eq = item.indexOf('=');
    const name = eq >= 0 ? item.slice(0, eq) : item;
    if (!SECRET_NAME.test(name)) {
      throw new UsageError(
        `--secret ${JSON.stringify(eq >= 0 ? `${name}=...` : name)}: ${JSON.stringify(name)} is not an environment variable name`,
        'a secret name has letters, digits and _, and does not start with a digit: --secret OPENAI_API_KEY=... or --secret OPENAI_API_KEY.',
      );
    }
    if (secrets.has(name)) throw new UsageError(`--secret ${name} is given twice`, 'give each secret once.');
    secrets.set(name, eq >= 0 ? item.slice(eq + 1) : fromEnvironment(ctx, name, `--secret ${name}`));
  }
  for (const value of secrets.values()) ctx.secretValues.add(value);
  return secrets;
}

/** The value of the environment variable `name`, remembered for masking; a usage error naming `what` when it is not set. */
export function fromEnvironment(ctx: Context, name: string, what: string): string {
  const value = ctx.env[name];
  if (value === undefined)
    throw new UsageError(
      `${what}: the environment variable ${name} is not set`,
      `set ${name} in the environment (in GitHub Actions: env: ${name}: \${{ secrets.${name} }}), or pass --secret ${name}=<value>.`,
    );
  ctx.secretValues.add(value);
  return value;
}

export function asSecrets(secrets: Map<string, string>): Secret[] {
  return [...secrets].map(([name, value]) => ({ name, value }));
}

/** `text` with every remembered secret value replaced by `***`, the longest first (one may contain another). */
export function maskSecrets(text: string, values: ReadonlySet<string>): string {
  let masked = text;
  for (const value of [...values].filter((v) => v.length >= SHORTEST_MASKED).sort((a, b) => b.length - a.length)) {
    masked = masked.replaceAll(value, '***');
  }
  return masked;
}
