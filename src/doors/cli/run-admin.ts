import { AppError } from '../../foundation/errors/app-error';
import type * as ConfigModule from '../../foundation/config';
import type * as RunnerModule from './command-runner';
import { UsageError } from './command';
import { COMMANDS } from './commands';
import { dispatch } from './dispatch';

/** Where the admin CLI writes, and the environment it reads (the process's own in `admin.ts`). */
export interface AdminIo {
  readonly env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

async function main(argv: string[], io: AdminIo): Promise<void> {
  const found = dispatch(COMMANDS, argv);
  if (found.kind === 'help') {
    io.stdout(`${found.text}\n`);
    return;
  }
  const { command, options, positionals } = found;

  // Required only now: help and usage errors never load the database modules.
  const { loadConfig } = require('../../foundation/config') as typeof ConfigModule;
  const { runCommand } = require('./command-runner') as typeof RunnerModule;
  const result = await runCommand({ config: loadConfig(io.env), command, options, positionals, progress: (line) => io.stderr(`${line}\n`) });
  io.stdout(`${JSON.stringify(result, null, 2)}\n`);
}

/**
 * One admin CLI run: the result as one JSON object on stdout and exit code 0; a usage error on
 * stderr with 2; any other error (its code and, for VALIDATION_ERROR, every failing field) with 1.
 */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  try {
    await main(argv, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`error: ${error.message}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      const details = error.code === 'VALIDATION_ERROR' ? (error.details?.errors as Array<{ field: string; message: string }>) : [];
      const lines = details.length > 0 ? details.map((item) => `  ${item.field}: ${item.message}`).join('\n') : `  ${error.message}`;
      io.stderr(`error: ${error.code}\n${lines}\n`);
      return 1;
    }
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
