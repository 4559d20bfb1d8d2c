import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';

export type Options = Record<string, string | undefined>;

/** One admin command: `name` is the words that select it (e.g. "key create"). */
export interface Command {
  readonly name: string;
  readonly usage: string;
  readonly help: string;
  parse(args: string[]): { options: Options; positionals: string[] };
  run(em: EntityManager, options: Options, positionals: string[]): Promise<unknown>;
}

/** Strict option parsing (unknown options are errors) with an exact number of positionals. */
export function parser(spec: Record<string, { type: 'string' }>, positionalCount = 0) {
  return (args: string[]) => {
    const { values, positionals } = parseArgs({ args, options: spec, allowPositionals: positionalCount > 0, strict: true });
    if (positionals.length !== positionalCount) {
      throw new Error(`expected ${positionalCount} positional argument(s), got ${positionals.length}`);
    }
    return { options: values as Options, positionals };
  };
}
