import { randomBytes } from 'node:crypto';
import { runCli, runCliInProcess, type CliResult } from './helpers/admin-cli';
import { revokeApiKey } from '../src/modules/api-key/commands/revoke-api-key';
import { addMember } from '../src/modules/member/commands/add-member';
import { databaseUrl, describeOnPostgres, withAdminClient } from './helpers/database';
import { createApiKey, createOrganization } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';
import { systemScope } from '../src/platform/db/unit-of-work-scope';

// The admin CLI's lookups (org list/show, key show, member list/remove) and `db migrate`'s answer, as an
// operator runs them: one JSON object on stdout and exit 0, or the error on stderr, nothing on stdout
// and exit 1. (Through a running embedded server's admin channel: test/zero-config.test.ts.)
// The lookups run the CLI's entry in this process (runCliInProcess: same arguments, output and exit
// code); `process` runs the compiled CLI as a Node process, for the exit codes 1 and 2 and `db migrate`.
jest.setTimeout(90_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const admin = (...args: string[]) => runCliInProcess(app.databaseUrl, args);
const processAdmin = (...args: string[]) => runCli(app.databaseUrl, args);

function jsonOf(result: CliResult): Record<string, any> {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.json).toEqual(expect.any(Object));
  expect(Array.isArray(result.json)).toBe(false);
  return result.json;
}

function expectNotFound(result: CliResult, id: string): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^error: NOT_FOUND\n/);
  expect(result.stderr).toContain(id);
}

let organizationId: string;
let otherOrganizationId: string;
let keyId: string;
let secret: string;
const memberIds: string[] = [];

// The data is made in-process (by the commands the CLI calls): only the lookups run the CLI.
beforeAll(async () => {
  organizationId = (await createOrganization(app.orm, { name: 'Lookup org', timezone: 'Europe/Paris' })).id;
  otherOrganizationId = (await createOrganization(app.orm, { name: 'Other lookup org' })).id;
  ({ id: keyId, key: secret } = await createApiKey(app.orm, organizationId, { name: 'ci', permissions: ['events:read'] }));
  const revoked = await createApiKey(app.orm, organizationId, { name: 'old', permissions: ['events:read'] });
  await revokeApiKey(systemScope(app.orm.em.fork()), organizationId, revoked.id);
  for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com']) {
    memberIds.push((await addMember(systemScope(app.orm.em.fork()), organizationId, { email, name: email.split('@')[0] })).id);
  }
});

describe('org update: the booking windows (D20, D21)', () => {
  test('--hold-minutes and --waitlist-offer-minutes are stored, printed by org update and org show', async () => {
    const { id } = await createOrganization(app.orm, { name: 'Windows org' });
    expect(jsonOf(await admin('org', 'show', id))).toMatchObject({ holdMinutes: 15, waitlistOfferMinutes: 60 });
    expect(jsonOf(await admin('org', 'update', id, '--hold-minutes', '5', '--waitlist-offer-minutes', '1440'))).toMatchObject({
      id,
      holdMinutes: 5,
      waitlistOfferMinutes: 1440,
    });
    expect(jsonOf(await admin('org', 'update', id, '--hold-minutes', '7'))).toMatchObject({ holdMinutes: 7, waitlistOfferMinutes: 1440 });
    expect(jsonOf(await admin('org', 'show', id))).toMatchObject({ holdMinutes: 7, waitlistOfferMinutes: 1440 });
    const [row] = await app.orm.em.fork().getConnection().execute('select hold_minutes, waitlist_offer_minutes from organizations where id = ?', [id]);
    expect(row).toEqual({ hold_minutes: 7, waitlist_offer_minutes: 1440 });
  });

  test('out of 1 to 1440, or not a whole number: every bad option on stderr, exit 1, nothing changed', async () => {
    const { id } = await createOrganization(app.orm, { name: 'Windows org 2' });
    const refused = await admin('org', 'update', id, '--hold-minutes', '0', '--waitlist-offer-minutes', '1441');
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^error: VALIDATION_ERROR/);
    expect(refused.stderr).toContain('--hold-minutes must be a whole number of at least 1');
    expect(refused.stderr).toContain('--waitlist-offer-minutes must be at most 1440');
    expect((await admin('org', 'update', id, '--hold-minutes', '2.5')).stderr).toContain('--hold-minutes');
    expect(jsonOf(await admin('org', 'show', id))).toMatchObject({ holdMinutes: 15, waitlistOfferMinutes: 60 });
  });

  test('org update --help names both options', async () => {
    const help = await admin('org', 'update', '--help');
    expect(help.stdout).toContain('--hold-minutes N');
    expect(help.stdout).toContain('--waitlist-offer-minutes N');
  });
});

describe('org list / org show', () => {
  test('org list: every organization, newest first, with the total', async () => {
    const list = jsonOf(await admin('org', 'list'));
    expect(list.total).toBe(list.organizations.length);
    const ids = list.organizations.map((organization: { id: string }) => organization.id);
    expect(ids.indexOf(otherOrganizationId)).toBeLessThan(ids.indexOf(organizationId));
    expect(list.organizations.find((organization: { id: string }) => organization.id === organizationId)).toMatchObject({
      name: 'Lookup org',
      timezone: 'Europe/Paris',
      plan: 'STANDARD',
    });
  });

  test('org show: the organization with its member and usable-key counts', async () => {
    const [shown, other] = await Promise.all([admin('org', 'show', organizationId), admin('org', 'show', otherOrganizationId)]);
    expect(jsonOf(shown)).toMatchObject({ id: organizationId, name: 'Lookup org', members: 3, activeKeys: 1 });
    expect(jsonOf(other)).toMatchObject({ members: 0, activeKeys: 0 });
  });

  test('org show of an unknown id: NOT_FOUND on stderr, exit 1 (in this process and as a Node process)', async () => {
    expectNotFound(await admin('org', 'show', 'org_doesnotexist'), 'org_doesnotexist');
    expectNotFound(await processAdmin('org', 'show', 'org_doesnotexist'), 'org_doesnotexist');
  });

  test('org show without its argument is a usage error (exit 2, as a Node process)', async () => {
    const result = await processAdmin('org', 'show');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: npm run --silent admin -- org show ORG_ID');
  });
});

describe('key show', () => {
  test('shows the key without its secret or hash', async () => {
    const result = await admin('key', 'show', keyId);
    const key = jsonOf(result);
    expect(key).toMatchObject({ id: keyId, organizationId, name: 'ci', permissions: ['events:read'], revokedAt: null });
    expect(Object.keys(key)).not.toContain('key');
    expect(result.stdout).not.toContain(secret.slice(-20));
    expect(result.stdout).not.toMatch(/hash/i);
  });

  test('an unknown key id: NOT_FOUND on stderr, exit 1', async () => {
    expectNotFound(await admin('key', 'show', 'key_doesnotexist'), 'key_doesnotexist');
  });
});

describe('member list / member remove', () => {
  test('member list --org: newest first, paginated, with the total', async () => {
    const [allRun, secondRun, otherRun] = await Promise.all([
      admin('member', 'list', '--org', organizationId),
      admin('member', 'list', '--org', organizationId, '--page', '2', '--limit', '2'),
      admin('member', 'list', '--org', otherOrganizationId),
    ]);
    const all = jsonOf(allRun);
    expect(all).toMatchObject({ organizationId, total: 3, page: 1, limit: 20 });
    expect(all.members.map((member: { email: string }) => member.email)).toEqual(['cy@example.com', 'bob@example.com', 'ada@example.com']);
    const second = jsonOf(secondRun);
    expect(second).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(second.members.map((member: { email: string }) => member.email)).toEqual(['ada@example.com']);
    expect(jsonOf(otherRun)).toMatchObject({ total: 0, members: [] });
  });

  test('member list: an unknown organization is NOT_FOUND; bad paging is a validation error naming every option', async () => {
    const [unknown, bad] = await Promise.all([
      admin('member', 'list', '--org', 'org_doesnotexist'),
      admin('member', 'list', '--org', organizationId, '--limit', '500'),
    ]);
    expectNotFound(unknown, 'org_doesnotexist');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^error: VALIDATION_ERROR\n {2}limit: /);
  });

  test('member remove: prints the member removed; it is gone; removing it again is NOT_FOUND', async () => {
    const [removedId] = memberIds;
    const removed = jsonOf(await admin('member', 'remove', removedId));
    expect(removed).toEqual({ removed: expect.objectContaining({ id: removedId, organizationId, email: 'ada@example.com' }) });
    const list = jsonOf(await admin('member', 'list', '--org', organizationId));
    expect(list.total).toBe(2);
    expect(list.members.map((member: { id: string }) => member.id)).not.toContain(removedId);
    const [row] = await app.orm.em.fork().getConnection().execute('select count(*)::int as count from members where id = ?', [removedId]);
    expect(row.count).toBe(0);
    expectNotFound(await admin('member', 'remove', removedId), removedId);
  });
});

describe('db migrate', () => {
  test('on a migrated database: nothing to do, and the list of migrations', async () => {
    const result = jsonOf(await processAdmin('db', 'migrate'));
    expect(result.status).toBe('up-to-date');
    expect(result.applied).toEqual([]);
    expect(result.migrations.length).toBeGreaterThan(0);
  });
});

describeOnPostgres('creates an empty database on the PostgreSQL server')('db migrate on an empty database', () => {
  const name = `event_service_migrate_${randomBytes(5).toString('hex')}`;
  beforeAll(() => withAdminClient((client) => client.query(`create database "${name}"`)));
  afterAll(() => withAdminClient((client) => client.query(`drop database if exists "${name}" with (force)`)));

  test('applies every migration and says so; a second run finds nothing to do', async () => {
    const first = jsonOf(await runCli(databaseUrl(name), ['db', 'migrate']));
    expect(first.status).toBe('applied');
    expect(first.applied.length).toBeGreaterThan(0);
    expect(first.applied).toEqual(first.migrations);
    const second = jsonOf(await runCli(databaseUrl(name), ['db', 'migrate']));
    expect(second).toEqual({ status: 'up-to-date', applied: [], migrations: first.migrations });
  });
});
