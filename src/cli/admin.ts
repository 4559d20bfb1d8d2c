import 'reflect-metadata';
import { AppError } from '../errors/app-error';
import type * as ConfigModule from '../config';
import type * as RunnerModule from './command-runner';
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

  // Required only now: help and usage errors never load the database modules.
  const { loadConfig } = require('../config') as typeof ConfigModule;
  const { runCommand } = require('./command-runner') as typeof RunnerModule;
  const result = await runCommand(loadConfig(), command, options, positionals);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return 0;
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
