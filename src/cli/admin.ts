import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import { loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { UsageError } from './command';
import { COMMANDS } from './commands';
import { dispatch } from './dispatch';

async function main(argv: string[]): Promise<number> {
  const found = dispatch(COMMANDS, argv);
  if (found.kind === 'help') {
    process.stdout.write(`${found.text}\n`);
    return 0;
  }
  const { command, options, positionals } = found;

  const config = loadConfig();
  if (!config.databaseUrl) throw new UsageError('DATABASE_URL is not set: the admin CLI works on the server database');
  let orm: MikroORM | undefined;
  try {
    // A mistyped DATABASE_URL must fail, not quietly create a new database the server never reads.
    orm = await openDatabase({ clientUrl: config.databaseUrl, pool: { min: 0, max: 2 }, ensureDatabase: false });
    const result = await command.run(orm.em.fork(), options, positionals);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await orm?.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof AppError) {
      const details = error.code === 'VALIDATION_ERROR' ? (error.details?.errors as Array<{ field: string; message: string }>) : [];
      const lines = details.length > 0 ? details.map((item) => `  ${item.field}: ${item.message}`).join('\n') : `  ${error.message}`;
      process.stderr.write(`error: ${error.code}\n${lines}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
