import { UsageError, requiredOptionsOf, type Command, type Options } from './command';

export const INVOCATION = 'npm run --silent admin --';

export type Dispatch =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'run'; readonly command: Command; readonly options: Options; readonly positionals: string[] };

const isHelp = (word: string | undefined): boolean => word === '--help' || word === '-h' || word === 'help';

export function usageOf(commands: readonly Command[]): string {
  return `Usage: ${INVOCATION} <command> [options]

Commands:
${commands.map((command) => `  ${command.usage}`).join('\n')}

Every command prints one JSON object on stdout (errors go to stderr, exit code not 0).
Run a command with --help for its options, e.g. ${INVOCATION} ${commands[0]?.name ?? ''} --help
Uses the same database as the server: DATABASE_URL, else the embedded one in DATA_DIR (./.data),
also while the server runs.`;
}

function commandHelp(command: Command): string {
  return `Usage: ${INVOCATION} ${command.help}`;
}

/** Why a usage error happened, then how the command is used: short enough to read in a terminal. */
function failure(message: string, command: Command): UsageError {
  return new UsageError(`${message}\n\nUsage: ${INVOCATION} ${command.usage}\nRun "${INVOCATION} ${command.name} --help" for details.`);
}

/**
 * Resolves a command line into help to print or a command to run with checked options. Every
 * mistake (unknown command or option, missing value, missing required option) is a UsageError,
 * found before anything touches the database.
 */
export function dispatch(commands: readonly Command[], argv: readonly string[]): Dispatch {
  if (argv.length === 0) throw new UsageError(`no command given\n\n${usageOf(commands)}`);
  if (isHelp(argv[0]) && argv.length === 1) return { kind: 'help', text: usageOf(commands) };
  const words = isHelp(argv[0]) ? argv.slice(1) : argv;
  const helpWanted = isHelp(argv[0]) || words.includes('--help') || words.includes('-h');

  const command = commands.find((candidate) => candidate.name.split(' ').every((word, index) => words[index] === word));
  if (!command) {
    const group = commands.filter((candidate) => candidate.name.split(' ')[0] === words[0]);
    const listing = group.map((candidate) => `  ${candidate.usage}`).join('\n');
    if (group.length > 0 && helpWanted) return { kind: 'help', text: `Usage: ${INVOCATION} <command> [options]\n\n${listing}` };
    if (group.length > 0) {
      const given = words[1] === undefined || words[1].startsWith('-') ? `"${words[0]}" needs a command` : `unknown command "${words[0]} ${words[1]}"`;
      throw new UsageError(`${given}; one of:\n${listing}`);
    }
    throw new UsageError(`unknown command "${words[0]}"\n\n${usageOf(commands)}`);
  }
  if (helpWanted) return { kind: 'help', text: commandHelp(command) };

  const rest = words.slice(command.name.split(' ').length);
  let parsed: { options: Options; positionals: string[] };
  try {
    parsed = command.parse(rest);
  } catch (error) {
    throw failure(error instanceof Error ? error.message : String(error), command);
  }
  // Only absent options are usage errors; a blank value is the command's own validation to report.
  const missing = requiredOptionsOf(command.usage).filter((name) => parsed.options[name] === undefined);
  if (missing.length > 0) throw failure(`missing required option${missing.length > 1 ? 's' : ''} ${missing.map((name) => `--${name}`).join(', ')}`, command);
  return { kind: 'run', command, ...parsed };
}
