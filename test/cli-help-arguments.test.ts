import { execFile } from 'node:child_process';
import path from 'node:path';
import { COMMANDS } from '../src/cli/commands';

// Each case starts a Node process that loads the whole CLI: slow on a busy machine.
jest.setTimeout(90_000);

const ADMIN = path.resolve(__dirname, '../dist/cli/admin.js');

/** The compiled CLI, with no database configured: every case here must fail or answer before one is needed. */
function admin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [ADMIN, ...args], { env, encoding: 'utf8', timeout: 30_000 }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

// Each case starts a process: run them side by side.
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
