import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventInput } from './helpers/factories';
import { expectGracefulShutdownDuringBurst, expectLateRequestOnAcceptedConnectionAnswered, fillEvents } from './helpers/graceful-shutdown';
import { HttpsClient } from './helpers/https-client';
import { runAdminInProcess } from './helpers/admin-cli';
import { childEnv, runCli, spawnServer, type ServerProcess } from './helpers/spawned-server';

// No DATABASE_URL: the server and the CLI use the embedded PostgreSQL in DATA_DIR. This runs on any
// machine (it never touches the PostgreSQL server).
jest.setTimeout(180_000);

let dataDir: string;
const running: ServerProcess[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-zero-config-'));
});
afterAll(() => {
  for (const server of running) server.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<ServerProcess> {
  const server = await spawnServer({ DATA_DIR: dataDir });
  running.push(server);
  return server;
}

function sh(command: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('sh', ['-c', command], { timeout: 30_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout))),
  );
}

const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
/** The CLI's entry in this process, for commands that go through the running server's admin channel. */
const cliInProcess = (...args: string[]) => runAdminInProcess(args, childEnv({ DATA_DIR: dataDir }));
const lockFile = () => path.join(dataDir, 'embedded.lock');

let firstKey: string;
let organizationId: string;
let eventSlug: string;
// Each embedded start costs seconds of CPU, so a test leaves its server running for the next one (the
// tests of this file run in order): the first start serves tests 1-3, the second 4-5, the third 6.
let firstStart: ServerProcess;
let secondStart: ServerProcess;
let restarted: ServerProcess;

test('first start: creates a development organization and a test key, printed with curl lines that work when pasted', async () => {
  const server = await start();
  const banner = server.stderr();
  expect(server.logs.join('\n')).toContain(`embedded PostgreSQL (PGlite) in ${path.join(dataDir, 'pgdata')}`);
  firstKey = /\b(nk_test_[A-Za-z0-9]{32})\b/.exec(banner)![1];
  organizationId = /\((org_[A-Za-z0-9]+)\)/.exec(banner)![1];

  const restLine = banner.split('\n').find((line) => line.includes('/v1/events'))!.trim();
  expect(restLine).toBe(`curl --cacert ${path.join(dataDir, 'tls', 'localhost.crt')} -H "Authorization: Bearer ${firstKey}" ${server.url}/v1/events`);
  expect(JSON.parse(await sh(restLine))).toEqual({ events: [], total: 0, page: 1, limit: 20, nextCursor: null });
  const graphqlLine = banner.split('\n').find((line) => line.includes('/graphql'))!.trim();
  expect(JSON.parse(await sh(`${graphqlLine} -sS`))).toEqual({ data: { events: { total: 0, events: [] } } });

  // The key holds every permission.
  const client = new HttpsClient(server.url, server.ca);
  const input = eventInput();
  expect((await client.rest('POST', '/v1/events', firstKey, input)).status).toBe(201);
  eventSlug = input.slug as string;
  client.close();
  firstStart = server;
});

test('the admin CLI works on the embedded database while the server runs (through the server)', async () => {
  const server = firstStart;
  const created = await cli('org', 'create', '--name', 'Second org');
  expect(created.code).toBe(0);
  const organization = JSON.parse(created.stdout) as { id: string; name: string };
  expect(organization.name).toBe('Second org');
  // The rest through the admin channel from this process (the first one above is a CLI process).
  const keyResult = await cliInProcess('key', 'create', '--org', organization.id, '--name', 'from the CLI', '--permissions', 'events:read,events:write');
  expect(keyResult.code).toBe(0);
  const { key } = JSON.parse(keyResult.stdout) as { key: string };

  // The server sees the CLI's writes at once: same database.
  const client = new HttpsClient(server.url, server.ca);
  expect((await client.rest('GET', '/v1/events', key)).body).toMatchObject({ events: [], total: 0 });
  expect((await client.rest('POST', '/v1/events', key, eventInput())).status).toBe(201);

  // The lookups and db migrate go through the server too.
  const json = async (...args: string[]) => {
    const result = await cliInProcess(...args);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(result.stdout);
  };
  expect((await json('org', 'list')).organizations.map((item: { id: string }) => item.id)).toEqual([organization.id, organizationId]);
  expect(await json('org', 'show', organization.id)).toMatchObject({ id: organization.id, members: 0, activeKeys: 1 });
  const { id: keyId } = (await json('key', 'list', '--org', organization.id)).keys[0];
  expect(await json('key', 'show', keyId)).toMatchObject({ id: keyId, organizationId: organization.id, name: 'from the CLI' });
  const member = await json('member', 'add', '--org', organization.id, '--email', 'ops@example.com', '--name', 'Ops');
  expect((await json('member', 'list', '--org', organization.id)).members).toEqual([member]);
  expect(await json('member', 'remove', member.id)).toEqual({ removed: member });
  expect((await json('member', 'list', '--org', organization.id)).total).toBe(0);
  expect(await json('db', 'migrate')).toMatchObject({ status: 'up-to-date', applied: [] });

  // A revocation reaches the server's key cache before the command answers: its one connection hears
  // the change it committed (listenOnOwnConnection). The key was cached by the request just before.
  expect((await client.rest('GET', '/v1/events', key)).status).toBe(200);
  await json('key', 'revoke', keyId);
  expect((await client.rest('GET', '/v1/events', key)).status).toBe(401);

  // Errors come back as the CLI's usual errors.
  const missing = await cliInProcess('key', 'create', '--org', 'org_missing', '--name', 'x', '--permissions', 'events:read');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('NOT_FOUND');
  expect(missing.stdout).toBe('');

  // A second server on the same data directory refuses to start instead of corrupting it.
  const second = spawn(process.execPath, [path.resolve(__dirname, '../dist/server.js')], {
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let secondStderr = '';
  second.stderr.on('data', (chunk: Buffer) => (secondStderr += chunk.toString()));
  const secondExit = await new Promise<number | null>((resolve) => second.once('exit', resolve));
  expect(secondExit).toBe(1);
  expect(secondStderr).toContain(`another server (pid ${server.child.pid}) is using the embedded database`);
  client.close();
});

// The graceful shutdown on the embedded database (on PostgreSQL: test/graceful-shutdown.test.ts).
test('SIGTERM during a burst of requests (embedded database): accepted requests finish with 2xx, new connections are refused, exit 0, the lock is released', async () => {
  // 100 events so that every list request reads a full page.
  await fillEvents(firstStart, firstKey, 100);
  await expectGracefulShutdownDuringBurst(firstStart, firstKey, 60);
  expect(existsSync(lockFile())).toBe(false);
});

test('a second start reuses the data and prints no new key, but says how to get one', async () => {
  const server = await start();
  const banner = server.stderr();
  expect(banner).not.toMatch(/nk_(test|live)_/);
  expect(banner).toContain('no new key is created');
  expect(banner).toContain(`npm run --silent admin -- key create --org ${organizationId}`);
  const client = new HttpsClient(server.url, server.ca);
  const read = await client.rest('GET', `/v1/events/${eventSlug}`, firstKey);
  expect(read.status).toBe(200);
  expect(read.body.slug).toBe(eventSlug);
  client.close();
  secondStart = server;
});

test('after a crash, the stale lock is taken over by the CLI (which then opens the data itself) and by the server', async () => {
  const server = secondStart;
  server.child.kill('SIGKILL');
  await server.exit;
  expect(existsSync(lockFile())).toBe(true);

  // Two CLI commands at once without a server (each opening the embedded database itself costs
  // seconds of CPU): one takes the stale lock over, the other waits for it to release the data.
  const both = await Promise.all([cli('org', 'create', '--name', 'Concurrent one'), cli('org', 'create', '--name', 'Concurrent two')]);
  expect(both.map((result) => ({ code: result.code, stderr: result.stderr }))).toEqual([
    { code: 0, stderr: '' },
    { code: 0, stderr: '' },
  ]);
  expect(both.map((result) => JSON.parse(result.stdout).name)).toEqual(['Concurrent one', 'Concurrent two']);
  expect(existsSync(lockFile())).toBe(false);

  // A lock left by a process that no longer exists (another pid) is stale too.
  writeFileSync(lockFile(), JSON.stringify({ pid: 2 ** 22 + 17, adminPort: 1, token: 'x' }));
  restarted = await start();
  const client = new HttpsClient(restarted.url, restarted.ca);
  expect((await client.rest('GET', `/v1/events/${eventSlug}`, firstKey)).status).toBe(200);
  client.close();
});

test('a connection accepted before SIGTERM that sends its request later is still answered, with Connection: close (embedded database)', async () => {
  await expectLateRequestOnAcceptedConnectionAnswered(restarted, firstKey);
  expect(existsSync(lockFile())).toBe(false);
});
