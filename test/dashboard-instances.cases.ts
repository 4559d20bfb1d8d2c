import { randomBytes } from 'node:crypto';
import { runCliInProcess, within } from './helpers/admin-cli';
import { sessionGraphql, signIn } from './helpers/dashboard';
import { createTestDatabase } from './helpers/database';
import { spawnServer, type ServerProcess } from './helpers/server-process';

// Two server processes on one database: a session made on one is honoured by the other, and signing
// out on one ends it on both at once (sessions live in PostgreSQL and are read on every request).
jest.setTimeout(120_000);

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

test('`member add` + `member invite`, a password set on one instance, and sign-out on one instance ends the session on the other', async () => {
  const organization = await cli(['org', 'create', '--name', 'Two instances']);
  const member = await cli(['member', 'add', '--org', organization.id, '--email', 'Lin@Example.com', '--name', 'Lin', '--role', 'admin']);
  const invitation = await cli(['member', 'invite', member.id]);
  expect(invitation).toMatchObject({ member: { id: member.id, email: 'lin@example.com' } });
  expect(Date.parse(invitation.expiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
  const token = String(invitation.url).split('/').pop();

  const [first, second] = servers;
  const accepted = await first.client.request('POST', '/dashboard/api/invitations/accept', {
    headers: { 'x-csrf-token': 'x' },
    json: { token, password: 'two instances, one password' },
  });
  expect(accepted.status).toBe(204);
  const session = await signIn(first.client, 'lin@example.com', 'two instances, one password');

  const viewer = '{ viewer { member { id } } }';
  for (const server of servers) expect((await sessionGraphql(server.client, session, viewer)).body.data.viewer.member.id).toBe(member.id);

  const out = await first.client.request('POST', '/dashboard/api/sign-out', { headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken } });
  expect(out.status).toBe(204);
  const refused = await sessionGraphql(second.client, session, viewer);
  expect(refused.status).toBe(401);
  expect(refused.body.errors[0].extensions.code).toBe('UNAUTHORIZED');

  // An unknown member id is a clear error from the CLI.
  const missing = await runCliInProcess(database.url, ['member', 'invite', 'mem_missing']);
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toMatch(/No member with id "mem_missing"/);
});

test('demoting the creator narrows a dashboard-made key within a second on both instances', async () => {
  const [first, second] = servers;
  const organization = await cli(['org', 'create', '--name', 'Inheritance']);
  const sessions = [];
  for (const name of ['creator', 'other']) {
    const member = await cli(['member', 'add', '--org', organization.id, '--email', `${name}@example.com`, '--name', name, '--role', 'admin']);
    const token = String((await cli(['member', 'invite', member.id])).url).split('/').pop();
    await first.client.request('POST', '/dashboard/api/invitations/accept', { headers: { 'x-csrf-token': 'x' }, json: { token, password: `${name} password long` } });
    sessions.push({ member, session: await signIn(first.client, `${name}@example.com`, `${name} password long`) });
  }
  const [creator, other] = sessions;
  const created = await sessionGraphql(first.client, creator.session, 'mutation { createApiKey(input: {name: "ci", permissions: ["events:read", "events:write"]}) { key } }');
  const { key } = created.body.data.createApiKey;
  const body = { title: 'x', slug: 'inherit-check', startDate: '2031-01-01T10:00:00Z', endDate: '2031-01-01T12:00:00Z' };
  // Both instances cache the key with its write permission (a bad body is a 400, not a 403).
  for (const server of servers) expect((await server.client.rest('POST', '/v1/events', key, { ...body, title: '' })).status).toBe(400);

  await sessionGraphql(second.client, other.session, 'mutation($id: ID!) { changeMemberRole(id: $id, role: MEMBER) { id } }', { id: creator.member.id });
  const took = await Promise.all(
    servers.map((server) => within(1_000, async () => (await server.client.rest('POST', '/v1/events', key, { ...body, title: '' })).status === 403, 10)),
  );
  expect(took.every((ms) => ms !== undefined)).toBe(true);
  const refused = await first.client.rest('POST', '/v1/events', key, body);
  expect(refused.body.error.details).toEqual({ requiredPermission: 'events:write', currentPermissions: ['events:read'] });
});
