import { randomBytes } from 'node:crypto';
import { runCliInProcess, within } from './helpers/admin-cli';
import { createTestDatabase } from './helpers/database';
import { spawnServer, type ServerProcess } from './helpers/server-process';

// What is tested is the two server processes; the CLI runs in this process (runCliInProcess), on its own
// connection like an operator's CLI: the changes reach the servers through the database's notifications.
jest.setTimeout(60_000);

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  // Instances on one database share the server secret (D24), or the second refuses to start.
  const shared = { DATABASE_URL: database.url, SECRET_KEY: randomBytes(32).toString('base64') };
  servers = await Promise.all([spawnServer(shared), spawnServer(shared)]);
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await database.drop();
});

async function cli(args: string[]) {
  const result = await runCliInProcess(database.url, args);
  expect(result.code).toBe(0);
  return result.json;
}

test('two server processes on one database both refuse a key within one second of `key revoke`', async () => {
  const organization = await cli(['org', 'create', '--name', 'Two instances']);
  const { id, key } = await cli(['key', 'create', '--org', organization.id, '--name', 'shared', '--permissions', 'events:read']);
  for (const server of servers) {
    // Twice each: the second answer comes from the key cache.
    expect((await server.client.rest('GET', '/v1/events', key)).status).toBe(200);
    expect((await server.client.rest('GET', '/v1/events', key)).status).toBe(200);
  }

  await cli(['key', 'revoke', id]);
  const took = await Promise.all(
    servers.map((server) => within(1_000, async () => (await server.client.rest('GET', '/v1/events', key)).status === 401, 10)),
  );
  expect(took.every((ms) => ms !== undefined)).toBe(true);
  for (const server of servers) {
    const refused = await server.client.rest('GET', '/v1/events', key);
    expect(refused.body.error.code).toBe('INVALID_API_KEY');
  }

  // The server process's own output never shows a key, even one sent in the URL.
  const inUrl = await servers[0].client.request('GET', `/v1/events?api_key=${key}&page=1`);
  expect(inUrl.status).toBe(401);
  // The request line is written after the answer is sent: wait for it rather than for a fixed time.
  const logged = await within(5_000, async () => servers[0].logs.join('\n').includes('/v1/events?api_key=[REDACTED]&page=1'));
  expect(logged).toBeDefined();
  const output = servers[0].logs.join('\n');
  expect(output).not.toContain(key.slice(8));
});

test('an organization change made through the CLI reaches both processes within one second', async () => {
  const organization = await cli(['org', 'create', '--name', 'Restricted later', '--plan', 'enterprise']);
  const { key } = await cli(['key', 'create', '--org', organization.id, '--name', 'k', '--permissions', 'events:read']);
  for (const server of servers) expect((await server.client.rest('GET', '/v1/events', key)).status).toBe(200);

  await cli(['org', 'update', organization.id, '--allowed-ips', '203.0.113.0/24', '--restriction-mode', 'STRICT']);
  const took = await Promise.all(
    servers.map((server) => within(1_000, async () => (await server.client.rest('GET', '/v1/events', key)).status === 403, 10)),
  );
  expect(took.every((ms) => ms !== undefined)).toBe(true);
  const refused = await servers[0].client.rest('GET', '/v1/events', key);
  expect(refused.body.error).toMatchObject({ code: 'IP_NOT_ALLOWED', details: { ip: '127.0.0.1' } });
});
