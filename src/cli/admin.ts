import 'reflect-metadata';
import { AppError } from '../errors/app-error';
import { loadConfig } from '../config';
import { runCommand } from './command-runner';
import { COMMANDS, type Command } from './commands';

const USAGE = `Usage: npm run --silent admin -- <command> [options]

Commands:
${COMMANDS.map((command) => `  ${command.usage}`).join('\n')}

Every command prints one JSON object on stdout. Run a command with --help for its options.
Uses the same database as the server: DATABASE_URL, else the embedded database in DATA_DIR (./.data),
also while the server runs.`;

class UsageError extends Error {}

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((word, index) => argv[index] === word)) return { command, rest: argv.slice(words.length) };
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) throw new UsageError(`unknown command "${argv.slice(0, 2).join(' ')}"\n\n${USAGE}`);
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    process.stdout.write(`${found.command.help}\n`);
    return 0;
  }
  let options: Record<string, string | undefined>;
  let positionals: string[];
  try {
    ({ options, positionals } = found.command.parse(found.rest));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${found.command.help}`);
  }

  const result = await runCommand(loadConfig(), found.command, options, positionals);
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
