import { addMember } from '../src/modules/member/commands/add-member';
import { runCli, runCliInProcess, type CliResult } from './helpers/admin-cli';
import { createApiKey, createTenant } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';
import { systemScope } from '../src/platform/db/unit-of-work-scope';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

jest.setTimeout(60_000);

const MEMBERS = `query($page: Int, $limit: Int) { members(page: $page, limit: $limit) { members { id email name role createdAt } total page limit } }`;

const statusOf = ({ code, stdout, stderr }: CliResult) => ({ status: code, stdout, stderr });
/** The admin CLI in this process (runAdmin: the same output and exit code), on the test app's database. */
const admin = async (...args: string[]) => statusOf(await runCliInProcess(app.databaseUrl, args));
/** The compiled admin CLI as a Node process (what `npm run --silent admin --` runs): for exit codes and stderr. */
const processAdmin = async (...args: string[]) => statusOf(await runCli(app.databaseUrl, args));

test('member add prints one JSON object and stores the member (email in lower case, role member by default)', async () => {
  const { organization } = await createTenant(app.orm);
  const result = await admin('member', 'add', '--org', organization.id, '--email', ' Ada@Example.COM ', '--name', 'Ada Lovelace');
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const member = JSON.parse(result.stdout);
  expect(member).toEqual({
    id: expect.stringMatching(/^mem_[A-Za-z0-9]{20}$/),
    organizationId: organization.id,
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    role: 'MEMBER',
    createdAt: expect.stringMatching(/Z$/),
  });
  const rows = await app.orm.em.fork().getConnection().execute('select organization_id, email, name, role from members where id = ?', [member.id]);
  expect(rows).toEqual([{ organization_id: organization.id, email: 'ada@example.com', name: 'Ada Lovelace', role: 'MEMBER' }]);

  const adminRole = await admin('member', 'add', '--org', organization.id, '--email', 'grace@example.com', '--name', 'Grace', '--role', 'ADMIN');
  expect(JSON.parse(adminRole.stdout).role).toBe('ADMIN');
});

// A duplicate email (any case) is refused within an organization, another organization may use it,
// two adds racing make one member: test/commands/access-commands.test.ts (members: add), with the exact
// message; how the CLI prints a VALIDATION_ERROR is asserted below.

test('member add validates every field at once, and names an unknown organization or a missing --org', async () => {
  const { organization } = await createTenant(app.orm);
  const invalid = await processAdmin('member', 'add', '--org', organization.id, '--email', 'not-an-email', '--name', ' ', '--role', 'owner');
  expect(invalid.status).toBe(1);
  expect(invalid.stderr).toBe(
    'error: VALIDATION_ERROR\n  email: email must be an email address of at most 254 characters\n  name: name must be 1 to 200 characters\n  role: role must be admin or member\n',
  );
  // An absent required option is a usage error (exit 2), found before the database is opened.
  const missingEmail = await processAdmin('member', 'add', '--org', organization.id, '--name', 'No Email');
  expect(missingEmail.status).toBe(2);
  expect(missingEmail.stderr).toContain('missing required option --email');

  const unknownOrganization = await admin('member', 'add', '--org', 'org_missing', '--email', 'a@example.com', '--name', 'A');
  expect(unknownOrganization.status).toBe(1);
  expect(unknownOrganization.stderr).toBe('error: NOT_FOUND\n  No organization with id "org_missing"\n');

  const noOrganization = await admin('member', 'add', '--email', 'a@example.com', '--name', 'A');
  expect(noOrganization.status).toBe(2);
  expect(noOrganization.stderr).toContain('missing required option --org');

  const unknownOption = await admin('member', 'add', '--org', organization.id, '--email', 'a@example.com', '--name', 'A', '--admin');
  expect(unknownOption.status).toBe(2);
  const [count] = await app.orm.em.fork().getConnection().execute('select count(*)::int as count from members where organization_id = ?', [organization.id]);
  expect(count.count).toBe(0);
});

test("Query.members lists the key's organization only, newest first, paginated; members:read is required", async () => {
  const { organization, key } = await createTenant(app.orm);
  const stranger = await createTenant(app.orm);
  // Added in process (the CLI's wiring is the first test's): the command member add runs.
  for (const name of ['One', 'Two', 'Three']) await addMember(systemScope(app.orm.em.fork()), organization.id, { email: `${name.toLowerCase()}@example.com`, name });
  await addMember(systemScope(app.orm.em.fork()), stranger.organization.id, { email: 'stranger@example.com', name: 'Stranger' });

  const all = await app.client.graphql(key, MEMBERS);
  expect(all.body.data.members.total).toBe(3);
  expect(all.body.data.members.members.map((member: { name: string }) => member.name)).toEqual(['Three', 'Two', 'One']);
  expect(all.body.data.members.members[0]).toEqual({
    id: expect.stringMatching(/^mem_/),
    email: 'three@example.com',
    name: 'Three',
    role: 'MEMBER',
    createdAt: expect.stringMatching(/Z$/),
  });
  const page = await app.client.graphql(key, MEMBERS, { page: 2, limit: 2 });
  expect(page.body.data.members).toMatchObject({ total: 3, page: 2, limit: 2, members: [{ name: 'One' }] });

  const bad = await app.client.graphql(key, MEMBERS, { page: 0, limit: 500 });
  expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  expect(bad.body.errors[0].extensions.details.errors.map((error: { field: string }) => error.field)).toEqual(['page', 'limit']);
  const badType = await app.client.graphql(key, MEMBERS, { page: 'first' });
  expect(badType.status).toBe(400);
  expect(badType.body.errors[0].extensions.details.errors).toEqual([{ field: 'page', message: 'page must be an integer' }]);

  const eventsOnly = (await createApiKey(app.orm, organization.id, { permissions: ['events:read'] })).key;
  const forbidden = await app.client.graphql(eventsOnly, MEMBERS);
  expect(forbidden.body.errors[0].extensions).toEqual({
    code: 'FORBIDDEN',
    details: { requiredPermission: 'members:read', currentPermissions: ['events:read'] },
  });
});
