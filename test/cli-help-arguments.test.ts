import { execFile } from 'node:child_process';
import path from 'node:path';
import { COMMANDS } from '../src/doors/cli/commands';
import { runAdminInProcess } from './helpers/admin-cli';

// The cases that start a Node process (the compiled CLI) are slow on a busy machine.
jest.setTimeout(90_000);

const ADMIN = path.resolve(__dirname, '../dist/doors/cli/admin.js');

function cliEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return env;
}

/** The compiled CLI as a Node process, with no database configured. */
function processAdmin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [ADMIN, ...args], { env: cliEnv(), encoding: 'utf8', timeout: 30_000 }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

/**
 * The CLI's entry in this process, with no database configured: every case here must fail or answer
 * before one is needed. The same output and exit code as the process (checked below for help, a
 * usage error and an option error).
 */
function admin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runAdminInProcess(args, cliEnv());
}

test.concurrent.each([[['--help']], [['org', 'create', '--name']], [['key', 'create', '--org', 'org_1', '--name', 'ci', '--permission', 'events:read']]])(
  'admin %j as a Node process answers exactly as the entry in this process (stdout, stderr, exit code)',
  async (args) => {
    const [spawned, inProcess] = await Promise.all([processAdmin(...args), admin(...args)]);
    expect(spawned).toEqual(inProcess);
  },
);

test.concurrent('--help lists every command on stdout, exit 0', async () => {
  for (const flag of ['--help', 'help']) {
    const result = await admin(flag);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const command of COMMANDS) expect(result.stdout).toContain(command.usage);
  }
});

test.concurrent.each(COMMANDS.map((command) => command.name))('"%s --help" prints its usage and options, exit 0', async (name) => {
  const command = COMMANDS.find((candidate) => candidate.name === name)!;
  for (const args of [[...name.split(' '), '--help'], ['help', ...name.split(' '), '-h']]) {
    const result = await admin(...args);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(command.help);
  }
});

test.concurrent('a group word alone names its commands; with --help too', async () => {
  const group = COMMANDS[COMMANDS.length - 1].name.split(' ')[0];
  const members = COMMANDS.filter((command) => command.name.startsWith(`${group} `));
  const bare = await admin(group);
  expect(bare.code).toBe(2);
  expect(bare.stdout).toBe('');
  expect(bare.stderr).toContain(`"${group}" needs a command`);
  for (const command of members) expect(bare.stderr).toContain(command.usage);
  const help = await admin(group, '--help');
  expect(help.code).toBe(0);
  for (const command of members) expect(help.stdout).toContain(command.usage);
});

test.concurrent.each([
  [[], /^error: no command given/],
  [['launch-rockets'], /^error: unknown command "launch-rockets"/],
  [['org', 'explode'], /^error: unknown command "org explode"; one of:\n {2}org create/],
  [['org', 'create', '--name', 'Acme', '--colour', 'red'], /^error: unknown option --colour\n/],
  [['org', 'create', '--name'], /^error: option --name needs a value/],
  [['org', 'create', '--name', '--plan', 'standard'], /^error: option --name needs a value/],
  [['org', 'create'], /^error: missing required option --name\n/],
  [['key', 'create', '--org', 'org_1'], /^error: missing required options --name, --permissions\n/],
  [['org', 'create', '--name', 'Acme', 'extra'], /^error: unexpected argument 'extra'/],
])('admin %j: a clear error on stderr, nothing on stdout, exit 2', async (args, message) => {
  const result = await admin(...(args));
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /); // never a stack trace
});

test.concurrent('an option error shows the command usage and how to get its help', async () => {
  const result = await admin('key', 'create', '--org', 'org_1', '--name', 'ci', '--permission', 'events:read');
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('unknown option --permission');
  expect(result.stderr).toContain(`Usage: npm run --silent admin -- ${COMMANDS.find((c) => c.name === 'key create')!.usage}`);
  expect(result.stderr).toContain('Run "npm run --silent admin -- key create --help" for details.');
});

test('every command\'s help starts with its usage line, so the command list and the command\'s help agree', () => {
  for (const command of COMMANDS) expect(command.help.split('\n')[0]).toBe(command.usage);
  const update = COMMANDS.find((command) => command.name === 'org update')!;
  expect(update.usage).toContain('[--rate-limit N|default]');
});

// What keeps `--help` and usage errors instant: they load no ORM, database driver or schema library
// (command files require their services inside run). Checked by the modules loaded, not by a clock.
test.concurrent.each([[['--help']], [['org', 'update', '--help']], [['key', 'create', '--org', 'org_1']]])(
  'admin %j loads no database or ORM module',
  async (args) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ARGS: JSON.stringify(args) };
    delete env.DATABASE_URL;
    const script = `process.argv = [process.argv[0], 'admin', ...JSON.parse(process.env.ARGS)];
process.on('exit', () => process.stderr.write('\\nMODULES ' + JSON.stringify(Object.keys(require.cache))));
require(${JSON.stringify(ADMIN)});`;
    const stderr = await new Promise<string>((resolve) =>
      execFile(process.execPath, ['-e', script], { env, encoding: 'utf8', timeout: 30_000 }, (_error, _stdout, output) => resolve(output)),
    );
    const modules = JSON.parse(stderr.slice(stderr.indexOf('MODULES ') + 'MODULES '.length)) as string[];
    expect(modules.length).toBeGreaterThan(3);
    const heavy = modules.filter((file) =>
      /node_modules\/(@mikro-orm|@electric-sql|pg|knex|type-graphql|graphql|class-validator)\/|\/dist\/(modules\/.*\.(entity|service)|db\/database|db\/orm-config)\.js$/.test(file),
    );
    expect(heavy).toEqual([]);
  },
);
