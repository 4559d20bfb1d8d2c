import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiKeyEntity } from '../../src/modules/api-key/api-key.entity';
import { keysOfOrganization, organizationOfKey } from '../../src/modules/api-key/api-key.repository';
import { createApiKey } from '../../src/modules/api-key/commands/create-api-key';
import { revokeApiKey } from '../../src/modules/api-key/commands/revoke-api-key';
import { rotateApiKey } from '../../src/modules/api-key/commands/rotate-api-key';
import { acceptInvitation } from '../../src/modules/member/commands/accept-invitation';
import { addMember } from '../../src/modules/member/commands/add-member';
import { changeMemberRole } from '../../src/modules/member/commands/change-member-role';
import { inviteMember } from '../../src/modules/member/commands/invite-member';
import { issueInvitation } from '../../src/modules/member/commands/issue-invitation';
import { removeMember } from '../../src/modules/member/commands/remove-member';
import { signIn } from '../../src/modules/member/commands/sign-in';
import { signOut } from '../../src/modules/member/commands/sign-out';
import { MemberRole } from '../../src/modules/member/member.entity';
import { listMembers } from '../../src/modules/member/member.read-model';
import { SIGN_IN_LIMITS } from '../../src/modules/member/sign-in.policy';
import { createOrganization } from '../../src/modules/organization/commands/create-organization';
import { updateOrganization } from '../../src/modules/organization/commands/update-organization';
import { OrganizationPlan, RestrictionMode } from '../../src/modules/organization/organization.entity';
import { findOrganization } from '../../src/modules/organization/organization.repository';
import { findSession } from '../../src/doors/dashboard/dashboard-session';
import { openCommandDatabase, type CommandDatabase } from '../helpers/command-database';
import { failure, fieldsOf } from '../helpers/command-failure';
import { systemScope } from '../../src/platform/db/unit-of-work-scope';

// The organization, member and API-key commands (D8, D9, D11, D12, D19) on real PostgreSQL without
// HTTP or a CLI process: the case matrices, tenancy, locks and races. The rules themselves are unit
// tested in test/policies/; the CLI, dashboard and GraphQL suites keep one case per route for wiring.
let database: CommandDatabase;
let orm: MikroORM;
beforeAll(async () => {
  database = await openCommandDatabase();
  orm = database.orm;
});
afterAll(() => database.close());

const em = () => orm.em.fork();
const SETTINGS = { publicUrl: 'https://dashboard.example', idleTimeoutMs: 30 * 60_000, absoluteLifetimeMs: 12 * 3_600_000 } as never;
const PASSWORD = 'correct horse battery staple';
let counter = 0;
const email = (name: string) => `${name}-${++counter}@example.com`;

const newOrganization = (name = 'Org') => createOrganization(systemScope(em()), { name });

describe('organizations', () => {
  test('create: every failing field at once; the time zone stored canonical, STANDARD by default', async () => {
    const error = await failure(createOrganization(systemScope(em()), { name: ' ', timezone: 'Nowhere/City', rateLimitPerMinute: 0 }));
    expect(fieldsOf(error)).toEqual(['name', 'timezone', 'rateLimitPerMinute']);
    const created = await createOrganization(systemScope(em()), { name: '  Acme  ', timezone: 'utc' });
    expect(created).toMatchObject({ name: 'Acme', timezone: 'UTC', plan: OrganizationPlan.STANDARD, rateLimitPerMinute: null, allowedIps: [] });
  });

  test('update: input errors together before loading; then the D11 rules on the result; unknown id NOT_FOUND', async () => {
    const { id } = await newOrganization('Standard');
    expect(fieldsOf(await failure(updateOrganization(systemScope(em()), id, { timezone: 'Mars/Base', rateLimitPerMinute: 1.5, allowedIps: ['not an ip'], restrictionMode: 'SOMETIMES' })))).toEqual([
      'timezone',
      'rateLimitPerMinute',
      'allowedIPs[0]',
      'restrictionMode',
    ]);
    expect(fieldsOf(await failure(updateOrganization(systemScope(em()), id, { restrictionMode: RestrictionMode.STRICT, allowedIps: ['10.0.0.0/8'] })))).toEqual([
      'restrictionMode',
      'allowedIPs',
    ]);
    // Becoming ENTERPRISE and STRICT in one change still needs an address.
    expect(fieldsOf(await failure(updateOrganization(systemScope(em()), id, { plan: OrganizationPlan.ENTERPRISE, restrictionMode: RestrictionMode.STRICT })))).toEqual(['allowedIPs']);
    // Nothing was applied by a refused change.
    expect(await em().findOneOrFail('OrganizationEntity', { id })).toMatchObject({ allowedIps: [], restrictionMode: RestrictionMode.OFF });

    const updated = await updateOrganization(systemScope(em()), id, {
      plan: OrganizationPlan.ENTERPRISE,
      restrictionMode: 'STRICT',
      allowedIps: ['10.0.0.0/8', '2001:0db8::1', '10.0.0.0/8'],
      timezone: 'europe/paris',
      rateLimitPerMinute: 50,
    });
    expect(updated).toMatchObject({ plan: OrganizationPlan.ENTERPRISE, restrictionMode: RestrictionMode.STRICT, allowedIps: ['10.0.0.0/8', '2001:db8::1'], timezone: 'Europe/Paris', rateLimitPerMinute: 50 });
    // Absent fields stay; clearing the list while STRICT is refused; null rate limit is the server default.
    expect(fieldsOf(await failure(updateOrganization(systemScope(em()), id, { allowedIps: [] })))).toEqual(['allowedIPs']);
    expect(fieldsOf(await failure(updateOrganization(systemScope(em()), id, { plan: OrganizationPlan.STANDARD })))).toEqual(['restrictionMode', 'allowedIPs']);
    expect(await updateOrganization(systemScope(em()), id, { rateLimitPerMinute: null })).toMatchObject({ rateLimitPerMinute: null, timezone: 'Europe/Paris', allowedIps: ['10.0.0.0/8', '2001:db8::1'] });
    expect(await failure(updateOrganization(systemScope(em()), 'org_missing', {}))).toMatchObject({ code: 'NOT_FOUND', message: 'No organization with id "org_missing"', details: { id: 'org_missing' } });
    expect(await failure(findOrganization(em(), 'org_missing'))).toMatchObject({ code: 'NOT_FOUND', details: { id: 'org_missing' } });
  });

  test('two concurrent changes are checked one after the other (the row lock): the result always passes D11', async () => {
    const { id } = await createOrganization(systemScope(em()), { name: 'Race', plan: OrganizationPlan.ENTERPRISE });
    await updateOrganization(systemScope(em()), id, { allowedIps: ['192.0.2.0/24'] });
    const results = await Promise.allSettled([
      updateOrganization(systemScope(em()), id, { restrictionMode: RestrictionMode.STRICT }),
      updateOrganization(systemScope(em()), id, { allowedIps: [] }),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const stored = await em().findOneOrFail('OrganizationEntity', { id });
    expect(stored).not.toMatchObject({ restrictionMode: RestrictionMode.STRICT, allowedIps: [] });
  });
});

describe('members', () => {
  test('add: normalized, checked at once, unique per organization (any case), NOT_FOUND for an unknown organization', async () => {
    const { id } = await newOrganization();
    const other = await newOrganization();
    const ada = await addMember(systemScope(em()), id, { email: '  Ada@Example.COM ', name: ' Ada ', role: 'Admin' });
    expect(ada).toMatchObject({ email: 'ada@example.com', name: 'Ada', role: MemberRole.ADMIN });
    expect((await addMember(systemScope(em()), id, { email: 'max@example.com', name: 'Max' })).role).toBe(MemberRole.MEMBER);
    expect(await failure(addMember(systemScope(em()), id, { email: 'ADA@example.com', name: 'Again' }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'email', message: 'a member with email "ada@example.com" already exists in this organization' }] },
    });
    expect((await addMember(systemScope(em()), other.id, { email: 'ada@example.com', name: 'Ada elsewhere' })).organization.id).toBe(other.id);
    expect(fieldsOf(await failure(addMember(systemScope(em()), id, { email: 'nope', name: '', role: 'owner' })))).toEqual(['email', 'name', 'role']);
    // Input errors come before looking the organization up.
    expect(fieldsOf(await failure(addMember(systemScope(em()), 'org_missing', { email: 'nope', name: 'A' })))).toEqual(['email']);
    expect(await failure(addMember(systemScope(em()), 'org_missing', { email: 'a@example.com', name: 'A' }))).toMatchObject({ code: 'NOT_FOUND', details: { id: 'org_missing' } });
  });

  test('add: two adds of one address at once make one member and one VALIDATION_ERROR (the unique index decides)', async () => {
    const { id } = await newOrganization();
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => addMember(systemScope(em()), id, { email: 'race@example.com', name: 'Race' })));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  test('list: newest first, paged, this organization only; bad paging names every field', async () => {
    const { id } = await newOrganization();
    const other = await newOrganization();
    for (const name of ['One', 'Two', 'Three']) await addMember(systemScope(em()), id, { email: email(name), name });
    await addMember(systemScope(em()), other.id, { email: email('stranger'), name: 'Stranger' });
    const page = await listMembers(em(), id, { page: 2, limit: 2 });
    expect({ ...page, members: page.members.map((member) => member.name) }).toEqual({ total: 3, page: 2, limit: 2, members: ['One'] });
    expect(fieldsOf(await failure(listMembers(em(), id, { page: 0, limit: 500 })))).toEqual(['page', 'limit']);
  });

  test('role changes and removals keep an admin through the dashboard; another organization is NOT_FOUND', async () => {
    const { id } = await newOrganization();
    const other = await newOrganization();
    const first = await addMember(systemScope(em()), id, { email: email('first'), name: 'First', role: 'admin' });
    const member = await addMember(systemScope(em()), id, { email: email('member'), name: 'Member' });
    const stranger = await addMember(systemScope(em()), other.id, { email: email('stranger'), name: 'Stranger', role: 'admin' });

    const lastAdmin = { code: 'VALIDATION_ERROR', details: { errors: [{ field: 'id', message: 'the organization must keep at least one admin: make someone else admin first' }] } };
    expect(await failure(changeMemberRole(systemScope(em()), id, first.id, MemberRole.MEMBER))).toMatchObject(lastAdmin);
    expect(await failure(removeMember(systemScope(em()), id, first.id, 'dashboard'))).toMatchObject(lastAdmin);
    expect(await failure(changeMemberRole(systemScope(em()), id, stranger.id, MemberRole.MEMBER))).toMatchObject({ code: 'NOT_FOUND', message: `No member with id "${stranger.id}"` });
    expect(await failure(removeMember(systemScope(em()), id, stranger.id, 'dashboard'))).toMatchObject({ code: 'NOT_FOUND' });

    expect((await changeMemberRole(systemScope(em()), id, member.id, MemberRole.ADMIN)).role).toBe(MemberRole.ADMIN);
    expect((await changeMemberRole(systemScope(em()), id, first.id, MemberRole.MEMBER)).role).toBe(MemberRole.MEMBER);
    expect((await removeMember(systemScope(em()), id, first.id, 'dashboard')).id).toBe(first.id);
    // The operator (admin CLI) may remove the last admin.
    expect((await removeMember(systemScope(em()), id, member.id, 'operator')).id).toBe(member.id);
    expect((await listMembers(em(), id, { page: 1, limit: 10 })).total).toBe(0);
    expect(await failure(removeMember(systemScope(em()), id, member.id, 'operator'))).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('two admins demoting each other at once: one wins, one admin remains', async () => {
    const { id } = await newOrganization();
    const a = await addMember(systemScope(em()), id, { email: email('a'), name: 'A', role: 'admin' });
    const b = await addMember(systemScope(em()), id, { email: email('b'), name: 'B', role: 'admin' });
    const results = await Promise.allSettled([
      changeMemberRole(systemScope(em()), id, a.id, MemberRole.MEMBER),
      removeMember(systemScope(em()), id, b.id, 'dashboard'),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const admins = (await listMembers(em(), id, { page: 1, limit: 10 })).members.filter((member) => member.role === MemberRole.ADMIN);
    expect(admins).toHaveLength(1);
  });
});

describe('invitations, sign-in and sessions (D19)', () => {
  test('an invitation is used once; a newer one replaces it; accepting sets the password and ends sessions', async () => {
    const { id } = await newOrganization();
    const other = await newOrganization();
    const invitation = await inviteMember(systemScope(em()), id, { email: email('inv'), name: 'Invited', role: MemberRole.ADMIN }, 'https://dash.example');
    expect(invitation.url).toBe(`https://dash.example${invitation.path}`);
    expect(invitation.path).toMatch(/^\/dashboard\/#\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(invitation.expiresAt.getTime() - Date.now()).toBeGreaterThan(24 * 3_600_000 - 60_000);
    const token = (path: string) => path.split('/').pop();

    const newer = await issueInvitation(systemScope(em()), id, invitation.member.id, 'https://dash.example');
    const invalid = { code: 'VALIDATION_ERROR', details: { errors: [{ field: 'token', message: 'the invitation link is invalid, already used or expired; ask an admin for a new one' }] } };
    expect(await failure(acceptInvitation(systemScope(em()), token(invitation.path), PASSWORD))).toMatchObject(invalid);
    expect(await failure(acceptInvitation(systemScope(em()), 'short', PASSWORD))).toMatchObject(invalid);
    expect(fieldsOf(await failure(acceptInvitation(systemScope(em()), token(newer.path), 'short')))).toEqual(['password']);
    expect(await failure(issueInvitation(systemScope(em()), other.id, invitation.member.id, 'https://dash.example'))).toMatchObject({ code: 'NOT_FOUND' });

    const session = await signIn(em(), SETTINGS, { email: invitation.member.email, password: 'x'.repeat(12), clientIp: '192.0.2.1' }).catch((error: unknown) => error);
    expect(session).toMatchObject({ code: 'UNAUTHORIZED', message: 'The email or the password is wrong' });

    expect(await acceptInvitation(systemScope(em()), token(newer.path), PASSWORD)).toBe(invitation.member.id);
    expect(await failure(acceptInvitation(systemScope(em()), token(newer.path), PASSWORD))).toMatchObject(invalid);
    const signedIn = await signIn(em(), SETTINGS, { email: invitation.member.email.toUpperCase(), password: PASSWORD, clientIp: '192.0.2.1' });
    const found = await findSession(em(), SETTINGS, signedIn.sessionId);
    expect(found).toMatchObject({ memberId: invitation.member.id, csrfToken: signedIn.csrfToken, auth: { organization: { id }, session: { role: 'ADMIN' } } });

    // A new password signs every session out.
    const again = await issueInvitation(systemScope(em()), id, invitation.member.id, 'https://dash.example');
    await acceptInvitation(systemScope(em()), token(again.path), `${PASSWORD}!`);
    expect(await findSession(em(), SETTINGS, signedIn.sessionId)).toBeUndefined();

    const later = await signIn(em(), SETTINGS, { email: invitation.member.email, password: `${PASSWORD}!`, clientIp: '192.0.2.1' });
    await signOut(em(), later.sessionId);
    expect(await findSession(em(), SETTINGS, later.sessionId)).toBeUndefined();
    await signOut(em(), 'not a session id');
  });

  test('failed sign-ins are limited per account: then even the right password is refused', async () => {
    const { id } = await newOrganization();
    const invitation = await inviteMember(systemScope(em()), id, { email: email('limited'), name: 'Limited', role: MemberRole.MEMBER }, 'https://dash.example');
    await acceptInvitation(systemScope(em()), invitation.path.split('/').pop(), PASSWORD);
    const attempt = (password: string) => signIn(em(), SETTINGS, { email: invitation.member.email, password, clientIp: `198.51.100.${++counter % 250}` });
    for (let index = 0; index < SIGN_IN_LIMITS.perAccount; index += 1) expect(await failure(attempt('wrong password!'))).toMatchObject({ code: 'UNAUTHORIZED' });
    const limited = await failure(attempt(PASSWORD));
    expect(limited.code).toBe('RATE_LIMITED');
    expect((limited.details as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(800);
    expect(fieldsOf(await failure(signIn(em(), SETTINGS, { email: 42, password: PASSWORD, clientIp: '192.0.2.9' })))).toEqual(['body']);
  });
});

describe('API keys', () => {
  test('create: checked at once, stored hashed, NOT_FOUND for an unknown organization', async () => {
    const { id } = await newOrganization();
    const { entity, key } = await createApiKey(systemScope(em()), id, { name: ' ci ', permissions: ['events:read', 'events:read'], environment: 'test' });
    expect(key).toMatch(/^nk_test_[A-Za-z0-9]{32}$/);
    expect(entity).toMatchObject({ name: 'ci', permissions: ['events:read'], prefix: key.slice(0, 12), createdByMemberId: null, expiresAt: null });
    expect(entity.keyHash).not.toContain(key);
    expect((await createApiKey(systemScope(em()), id, { name: 'default', permissions: ['events:read'] })).key).toMatch(/^nk_live_/);
    expect(fieldsOf(await failure(createApiKey(systemScope(em()), id, { name: '', permissions: ['events:fly'], environment: 'prod', expiresAt: new Date(Date.now() - 1) })))).toEqual([
      'environment',
      'name',
      'permissions',
      'expiresAt',
    ]);
    expect(await failure(createApiKey(systemScope(em()), 'org_missing', { name: 'x', permissions: ['events:read'] }))).toMatchObject({ code: 'NOT_FOUND', message: 'No organization with id "org_missing"' });
  });

  test('revoke: once, idempotent; another organization\'s key is NOT_FOUND', async () => {
    const { id } = await newOrganization();
    const other = await newOrganization();
    const { entity } = await createApiKey(systemScope(em()), id, { name: 'k', permissions: ['events:read'] });
    expect(await failure(revokeApiKey(systemScope(em()), other.id, entity.id))).toMatchObject({ code: 'NOT_FOUND', message: `No API key with id "${entity.id}"`, details: { id: entity.id } });
    const revoked = await revokeApiKey(systemScope(em()), id, entity.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect((await revokeApiKey(systemScope(em()), id, entity.id)).revokedAt).toEqual(revoked.revokedAt);
  });

  test('rotate: a like key (creator kept), the old one ends with the grace period; revoked, expired and bad grace refused', async () => {
    const { id } = await newOrganization();
    const creator = await addMember(systemScope(em()), id, { email: email('creator'), name: 'Creator', role: 'admin' });
    const { entity } = await createApiKey(systemScope(em()), id, {
      name: 'billing',
      permissions: ['events:read', 'bookings:read'],
      environment: 'test',
      expiresAt: new Date(Date.now() + 10 * 24 * 3_600_000),
      createdByMemberId: creator.id,
    });
    const before = Date.now();
    const rotated = await rotateApiKey(systemScope(em()), id, entity.id, 1);
    expect(rotated.entity).toMatchObject({ name: 'billing', environment: 'test', permissions: ['events:read', 'bookings:read'], createdByMemberId: creator.id });
    const lifetime = rotated.entity.expiresAt!.getTime() - rotated.entity.createdAt.getTime();
    expect(Math.abs(lifetime - 10 * 24 * 3_600_000)).toBeLessThan(5_000);
    expect(rotated.previous.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(rotated.previous.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect((await em().findOneOrFail(ApiKeyEntity, { id: entity.id })).expiresAt).toEqual(rotated.previous.expiresAt);

    expect(fieldsOf(await failure(rotateApiKey(systemScope(em()), id, rotated.entity.id, 10_000)))).toEqual(['graceHours']);
    const ended = await rotateApiKey(systemScope(em()), id, rotated.entity.id, 0);
    expect(fieldsOf(await failure(rotateApiKey(systemScope(em()), id, rotated.entity.id)))).toEqual(['keyId']);
    await revokeApiKey(systemScope(em()), id, ended.entity.id);
    expect(await failure(rotateApiKey(systemScope(em()), id, ended.entity.id))).toMatchObject({ details: { errors: [{ field: 'keyId', message: 'the key is revoked; create a new one instead' }] } });
    expect(await failure(rotateApiKey(systemScope(em()), 'org_other', ended.entity.id))).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('the operator\'s lookups (admin CLI): by key id across organizations, the keys of one organization (rotated ones too); an unknown key NOT_FOUND', async () => {
    const { id } = await newOrganization();
    const { entity } = await createApiKey(systemScope(em()), id, { name: 'ci', permissions: ['events:read'] });
    const rotated = await rotateApiKey(systemScope(em()), await organizationOfKey(em(), entity.id), entity.id, 1);
    expect((await keysOfOrganization(em(), id)).map((key) => key.id).sort()).toEqual([entity.id, rotated.entity.id].sort());
    expect(await failure(organizationOfKey(em(), 'key_missing'))).toMatchObject({ code: 'NOT_FOUND', details: { id: 'key_missing' } });
  });
});
