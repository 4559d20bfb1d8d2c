import { parseArgs } from 'node:util';
import type { Config } from '../../foundation/config';
import type { ServerSecrets } from '../../platform/crypto/server-secrets';
import type { UnitOfWorkScope } from '../../platform/db/unit-of-work-scope';

export type Options = Record<string, string | undefined>;

/** What the runner gives a command besides the database: commands never read the process environment. */
export interface CommandContext {
  /** Migrations applied while opening the database (none when a running server owns it). */
  readonly migrationsApplied: readonly string[];
  /**
   * The configuration the command runs with: the CLI's (from the environment `runAdmin` is given), or
   * the server's when it runs the command for the CLI through its admin channel.
   */
  readonly config: Config;
  /**
   * The server secret (D24) the command runs with, already checked against the database's fingerprint:
   * the CLI's own, or the server's when it runs the command through its admin channel.
   */
  readonly secrets: ServerSecrets;
  /** Progress of a long command: stderr of the CLI, or the server's log through the admin channel. */
  readonly progress: (line: string) => void;
}

/**
 * One admin command: `name` is the words that select it (e.g. "key create"); `help` starts with
 * `usage` (a test checks), so the top-level list and the command's own help agree.
 *
 * Command files require services (and so MikroORM) inside `run`, typed with `import type`
 * (`const organizations = () => require('…') as typeof OrganizationModule`): `--help` and usage
 * errors then never load the ORM, and start in a fraction of the time (a test checks which modules
 * `--help` loads).
 */
export interface Command {
  readonly name: string;
  readonly usage: string;
  readonly help: string;
  parse(args: string[]): { options: Options; positionals: string[] };
  run(scope: UnitOfWorkScope, options: Options, positionals: string[], context: CommandContext): Promise<unknown>;
}

/** A bad command line (unknown option, missing value, wrong arguments): exit 2 with the usage. */
export class UsageError extends Error {}

/** parseArgs' messages, said plainly: which option, and what is wrong with it. */
function usageErrorOf(error: unknown): UsageError {
  const { code, message } = error as { code?: string; message?: string };
  const option = /'(-{1,2}[^' <]+)/.exec(message ?? '')?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${option ?? message}`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(`option ${option} needs a value (e.g. ${option} VALUE, or ${option}=VALUE for a value starting with -)`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument ${/'([^']*)'/.exec(message ?? '')?.[0] ?? ''}: this command takes none`);
    default:
      return new UsageError(message ?? String(error));
  }
}

/** Strict option parsing (unknown options are errors) with an exact number of positionals. */
export function parser(spec: Record<string, { type: 'string' }>, positionalCount = 0) {
  return (args: string[]) => {
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args, options: spec, allowPositionals: positionalCount > 0, strict: true });
    } catch (error) {
      throw usageErrorOf(error);
    }
    const { values, positionals } = parsed;
    if (positionals.length !== positionalCount) {
      throw new UsageError(`expected ${positionalCount} argument(s) besides the options, got ${positionals.length}`);
    }
    return { options: values as Options, positionals };
  };
}

/** The options a usage line requires: those written outside [brackets] ("--org ORG_ID [--env E]" -> org). */
export function requiredOptionsOf(usage: string): string[] {
  return [...usage.replace(/\[[^\]]*\]/g, '').matchAll(/--([a-z][a-z0-9-]*)/g)].map((match) => match[1]);
}
