import { issueInvitation } from '../src/modules/member/commands/issue-invitation';
import { permissionsOfRole } from '../src/platform/auth/permissions';
import { ALL_PERMISSIONS, createApiKey, createOrganization, eventInput } from './helpers/factories';
import { within } from './helpers/admin-cli';
import { createMemberWithPassword, sessionGraphql, signIn, PASSWORD } from './helpers/dashboard';
import { useTestApp } from './helpers/use-test-app';
import { systemScope } from '../src/platform/db/unit-of-work-scope';

const ctx = useTestApp();

const CREATE_KEY = `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key apiKey { id effectivePermissions createdBy { id } } } }`;

async function adminSession() {
  const organization = await createOrganization(ctx.app.orm);
  const admin = await createMemberWithPassword(ctx.app.orm, organization.id, 'admin');
  return { organization, admin, session: await signIn(ctx.app.client, admin.email) };
}

describe('session cookie and cross-site requests', () => {
  test('the session cookie is __Host-, HttpOnly, Secure, SameSite=Lax, Path=/, without Domain', async () => {
    const { session } = await adminSession();
    const attributes = session.setCookie.split(';').map((part) => part.trim());
    expect(attributes[0]).toMatch(/^__Host-dashboard-session=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'Secure', 'HttpOnly', 'SameSite=Lax']));
    expect(attributes.some((part) => /^Max-Age=\d+$/.test(part))).toBe(true);
    expect(attributes.some((part) => /^domain=/i.test(part))).toBe(false);
  });

  test('a cross-site POST is refused: no anti-forgery header, a wrong token, another Origin, Sec-Fetch-Site cross-site', async () => {
    const { session } = await adminSession();
    const body = { query: '{ apiKeys { id } }' };
    const attempts: Record<string, string>[] = [
      { cookie: session.cookie },
      { cookie: session.cookie, 'x-csrf-token': 'guessed' },
      { cookie: session.cookie, 'x-csrf-token': session.csrfToken, origin: 'https://evil.example' },
      { cookie: session.cookie, 'x-csrf-token': session.csrfToken, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of attempts) {
      const response = await ctx.app.client.request('POST', '/graphql', { headers, json: body });
      expect(response.status).toBe(403);
      expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(response.body.errors[0].message).toMatch(/Cross-site request refused/);
    }
    // Sign-in and sign-out are guarded the same way.
    const signInFromElsewhere = await ctx.app.client.request('POST', '/dashboard/api/sign-in', {
      headers: { origin: 'https://evil.example', 'x-csrf-token': 'x' },
      json: { email: 'a@example.com', password: PASSWORD },
    });
    expect(signInFromElsewhere.status).toBe(403);
    const signInWithoutHeader = await ctx.app.client.request('POST', '/dashboard/api/sign-in', { json: { email: 'a@example.com', password: PASSWORD } });
    expect(signInWithoutHeader.status).toBe(403);
    const signOutWithoutHeader = await ctx.app.client.request('POST', '/dashboard/api/sign-out', { headers: { cookie: session.cookie } });
    expect(signOutWithoutHeader.status).toBe(403);
    expect((await sessionGraphql(ctx.app.client, session, '{ viewer { member { id } } }')).status).toBe(200);
  });

  test('sign-out ends the session; an idle or expired session is refused', async () => {
    const { session, admin } = await adminSession();
    expect((await sessionGraphql(ctx.app.client, session, '{ viewer { member { id } } }')).body.data.viewer.member.id).toBe(admin.id);
    const out = await ctx.app.client.request('POST', '/dashboard/api/sign-out', { headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken } });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    const after = await sessionGraphql(ctx.app.client, session, '{ viewer { member { id } } }');
    expect(after.status).toBe(401);
    expect(after.body.errors[0].extensions.code).toBe('UNAUTHORIZED');

    const idle = await signIn(ctx.app.client, admin.email);
    await ctx.app.orm.em.fork().execute(`update dashboard_sessions set last_seen_at = now() - interval '31 minutes'`);
    expect((await sessionGraphql(ctx.app.client, idle, '{ viewer { member { id } } }')).status).toBe(401);
    const old = await signIn(ctx.app.client, admin.email);
    await ctx.app.orm.em.fork().execute(`update dashboard_sessions set expires_at = now() - interval '1 second'`);
    expect((await sessionGraphql(ctx.app.client, old, '{ viewer { member { id } } }')).status).toBe(401);
  });

  test('an invitation link works once; a password shorter than 12 characters is refused', async () => {
    const organization = await createOrganization(ctx.app.orm);
    const member = await createMemberWithPassword(ctx.app.orm, organization.id, 'member');
    const invitation = await issueInvitation(systemScope(ctx.app.orm.em.fork()), organization.id, member.id, 'https://localhost');
    const token = invitation.path.split('/').pop();
    const accept = (password: string) =>
      ctx.app.client.request('POST', '/dashboard/api/invitations/accept', { headers: { 'x-csrf-token': 'x' }, json: { token, password } });
    const short = await accept('short');
    expect(short.status).toBe(400);
    expect(short.body.error.details.errors[0].field).toBe('password');
    expect((await accept('a new long password')).status).toBe(204);
    const again = await accept('another long password');
    expect(again.status).toBe(400);
    expect(again.body.error.details.errors[0].field).toBe('token');
    await signIn(ctx.app.client, member.email, 'a new long password');
  });
});

describe('sign-in limits', () => {
  test('failed sign-ins are limited per account: past 5, even the right password gets 429', async () => {
    const organization = await createOrganization(ctx.app.orm);
    const member = await createMemberWithPassword(ctx.app.orm, organization.id, 'member');
    const attempt = (password: string) =>
      ctx.app.client.request('POST', '/dashboard/api/sign-in', { headers: { 'x-csrf-token': 'x' }, json: { email: member.email, password } });
    for (let i = 0; i < 5; i += 1) {
      const wrong = await attempt('wrong password!!');
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('UNAUTHORIZED');
    }
    const limited = await attempt(PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['set-cookie']).toBeUndefined();
  });

  test('failed sign-ins are limited per address, across accounts', async () => {
    const organization = await createOrganization(ctx.app.orm);
    const member = await createMemberWithPassword(ctx.app.orm, organization.id, 'member');
    await ctx.app.orm.em.fork().execute(`delete from sign_in_failures`);
    for (let i = 0; i < 20; i += 1) {
      const response = await ctx.app.client.request('POST', '/dashboard/api/sign-in', {
        headers: { 'x-csrf-token': 'x' },
        json: { email: `nobody-${i}@example.com`, password: 'wrong password!!' },
      });
      expect(response.status).toBe(401);
    }
    const limited = await ctx.app.client.request('POST', '/dashboard/api/sign-in', { headers: { 'x-csrf-token': 'x' }, json: { email: member.email, password: PASSWORD } });
    expect(limited.status).toBe(429);
    await ctx.app.orm.em.fork().execute(`delete from sign_in_failures`);
  });
});

describe('admin-only fields', () => {
  const ADMIN_OPERATIONS = [
    '{ apiKeys { id } }',
    '{ organization { allowedIPs } }',
    '{ usage { days } }',
    'mutation { createApiKey(input: {name: "x", permissions: ["events:read"]}) { key } }',
    'mutation { revokeApiKey(id: "key_x") { id } }',
    'mutation { rotateApiKey(id: "key_x") { key } }',
    'mutation { inviteMember(input: {email: "x@example.com", name: "x"}) { url } }',
    'mutation { changeMemberRole(id: "mem_x", role: ADMIN) { id } }',
    'mutation { removeMember(id: "mem_x") { id } }',
    'mutation { updateOrganizationSettings(input: {timezone: "UTC"}) { id } }',
  ];

  test('an API key, even one holding every permission, never reaches a dashboard field', async () => {
    const organization = await createOrganization(ctx.app.orm);
    const { key } = await createApiKey(ctx.app.orm, organization.id, { permissions: ALL_PERMISSIONS });
    for (const query of ADMIN_OPERATIONS) {
      const response = await ctx.app.client.graphql(key, query);
      expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(response.body.errors[0].extensions.details.requiredSession).toMatch(/ADMIN|MEMBER/);
      expect(response.body.data ?? null).toBeNull();
    }
    // A key with a session cookie beside it is still a key: the Authorization header wins.
    const { session } = await adminSession();
    const mixed = await ctx.app.client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${key}`, cookie: session.cookie, 'x-csrf-token': session.csrfToken },
      json: { query: '{ apiKeys { id } }' },
    });
    expect(mixed.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  test('a MEMBER session reads but cannot change anything: 403 FORBIDDEN', async () => {
    const organization = await createOrganization(ctx.app.orm);
    const member = await createMemberWithPassword(ctx.app.orm, organization.id, 'member');
    const session = await signIn(ctx.app.client, member.email);
    // Query.viewer is the keys' who-am-I too: for a session it names the member, no key and no budget.
    const viewer = await sessionGraphql(
      ctx.app.client,
      session,
      '{ viewer { keyId name environment permissions member { id role } organization { id } rateLimit { limit } } members { total } }',
    );
    expect(viewer.body.data.viewer).toEqual({
      keyId: null,
      name: member.name,
      environment: null,
      permissions: permissionsOfRole('MEMBER'),
      member: { id: member.id, role: 'MEMBER' },
      organization: { id: organization.id },
      rateLimit: null,
    });
    expect(permissionsOfRole('MEMBER')).toEqual(expect.arrayContaining(['events:read', 'bookings:read', 'members:read']));
    expect(permissionsOfRole('MEMBER').every((permission) => permission.endsWith(':read'))).toBe(true);
    // D19: a MEMBER session holds the :read permissions, so it reads the organization's keys (never a secret, never another organization's), read only.
    const cliKey = await createApiKey(ctx.app.orm, organization.id, { permissions: ['events:read'] });
    const foreignKey = await createApiKey(ctx.app.orm, (await createOrganization(ctx.app.orm)).id);
    const keys = await sessionGraphql(ctx.app.client, session, '{ apiKeys { id prefix status } }');
    expect(keys.body.errors).toBeUndefined();
    expect(keys.body.data.apiKeys).toEqual([{ id: cliKey.id, prefix: expect.any(String), status: 'ACTIVE' }]);
    expect(keys.body.data.apiKeys.map((key: { id: string }) => key.id)).not.toContain(foreignKey.id);
    const revoke = await sessionGraphql(ctx.app.client, session, 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: cliKey.id });
    expect(revoke.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredSession: 'ADMIN' } });
    const create = await sessionGraphql(ctx.app.client, session, CREATE_KEY, { input: { name: 'nope', permissions: ['events:read'] } });
    expect(create.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredSession: 'ADMIN' } });
    const write = await sessionGraphql(ctx.app.client, session, 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id } }', { input: eventInput() });
    expect(write.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: 'events:write' } });
  });

  test("another organization's keys and members are unreachable and answer as missing", async () => {
    const mine = await adminSession();
    const other = await createOrganization(ctx.app.orm);
    const otherKey = await createApiKey(ctx.app.orm, other.id);
    const otherMember = await createMemberWithPassword(ctx.app.orm, other.id, 'admin');
    const list = await sessionGraphql(ctx.app.client, mine.session, '{ apiKeys { id } members { members { id } } }');
    expect(list.body.data.apiKeys.map((key: { id: string }) => key.id)).not.toContain(otherKey.id);
    expect(list.body.data.members.members.map((member: { id: string }) => member.id)).toEqual([mine.admin.id]);
    for (const [query, variables] of [
      ['mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: otherKey.id }],
      ['mutation($id: ID!) { rotateApiKey(id: $id) { key } }', { id: otherKey.id }],
      ['mutation($id: ID!) { changeMemberRole(id: $id, role: MEMBER) { id } }', { id: otherMember.id }],
      ['mutation($id: ID!) { removeMember(id: $id) { id } }', { id: otherMember.id }],
      ['mutation($id: ID!) { reinviteMember(id: $id) { url } }', { id: otherMember.id }],
    ] as const) {
      const response = await sessionGraphql(ctx.app.client, mine.session, query, variables);
      expect(response.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    const stillThere = await ctx.app.client.rest('GET', '/v1/events', otherKey.key);
    expect(stillThere.status).toBe(200);
  });

  test('the last admin cannot be demoted or removed', async () => {
    const { session, admin } = await adminSession();
    const demote = await sessionGraphql(ctx.app.client, session, 'mutation($id: ID!) { changeMemberRole(id: $id, role: MEMBER) { id } }', { id: admin.id });
    expect(demote.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });
});

describe('key inheritance (D19)', () => {
  test('a key made by an ADMIN who is then demoted loses its write permissions within a second; removal stops it', async () => {
    const { organization, session, admin } = await adminSession();
    const created = await sessionGraphql(ctx.app.client, session, CREATE_KEY, { input: { name: 'inherits', environment: 'test', permissions: ['events:read', 'events:write'] } });
    const { key, apiKey } = created.body.data.createApiKey;
    expect(apiKey.createdBy.id).toBe(admin.id);
    expect(apiKey.effectivePermissions).toEqual(['events:read', 'events:write']);
    expect((await ctx.app.client.rest('POST', '/v1/events', key, eventInput())).status).toBe(201);

    const other = await createMemberWithPassword(ctx.app.orm, organization.id, 'admin');
    const otherSession = await signIn(ctx.app.client, other.email);
    const demoted = await sessionGraphql(ctx.app.client, otherSession, 'mutation($id: ID!) { changeMemberRole(id: $id, role: MEMBER) { role } }', { id: admin.id });
    expect(demoted.body.data.changeMemberRole.role).toBe('MEMBER');
    const took = await within(1_000, async () => (await ctx.app.client.rest('POST', '/v1/events', key, eventInput())).status === 403, 10);
    expect(took).toBeDefined();
    const refused = await ctx.app.client.rest('POST', '/v1/events', key, eventInput());
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: 'events:write', currentPermissions: ['events:read'] } });
    expect((await ctx.app.client.rest('GET', '/v1/events', key)).status).toBe(200);
    const listed = await sessionGraphql(ctx.app.client, otherSession, '{ apiKeys { id effectivePermissions permissions } }');
    expect(listed.body.data.apiKeys.find((one: { id: string }) => one.id === apiKey.id)).toEqual({ id: apiKey.id, effectivePermissions: ['events:read'], permissions: ['events:read', 'events:write'] });
    // The demoted admin's own session lost the admin fields at once; it still reads the keys (as a MEMBER, D19).
    const sneaky = await sessionGraphql(ctx.app.client, session, 'mutation { createApiKey(input: {name: "sneaky", permissions: ["events:read"]}) { key } }');
    expect(sneaky.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await sessionGraphql(ctx.app.client, session, '{ apiKeys { id } }')).body.data.apiKeys.map((one: { id: string }) => one.id)).toContain(apiKey.id);

    await sessionGraphql(ctx.app.client, otherSession, 'mutation($id: ID!) { removeMember(id: $id) { id } }', { id: admin.id });
    expect(await within(1_000, async () => (await ctx.app.client.rest('GET', '/v1/events', key)).status === 401, 10)).toBeDefined();
    expect((await sessionGraphql(ctx.app.client, session, '{ viewer { member { id } } }')).status).toBe(401);
  });

  test('rotation in the dashboard: a new key shown once, the old one works for the grace period, the creator carries over', async () => {
    const { session, admin } = await adminSession();
    const created = (await sessionGraphql(ctx.app.client, session, CREATE_KEY, { input: { name: 'rotating', permissions: ['events:read'] } })).body.data.createApiKey;
    const rotated = await sessionGraphql(
      ctx.app.client,
      session,
      'mutation($id: ID!) { rotateApiKey(id: $id, graceHours: 2) { key apiKey { id name createdBy { id } } previous { id expiresAt status } } }',
      { id: created.apiKey.id },
    );
    const { key, apiKey, previous } = rotated.body.data.rotateApiKey;
    expect(apiKey).toMatchObject({ name: 'rotating', createdBy: { id: admin.id } });
    expect(previous).toMatchObject({ id: created.apiKey.id, status: 'ACTIVE' });
    expect(Date.parse(previous.expiresAt) - Date.now()).toBeGreaterThan(119 * 60_000);
    for (const secret of [key, created.key]) expect((await ctx.app.client.rest('GET', '/v1/events', secret)).status).toBe(200);
    const listed = (await sessionGraphql(ctx.app.client, session, '{ apiKeys { id } }')).body.data.apiKeys;
    expect(JSON.stringify(listed)).not.toContain('nk_');
  });

  test('keys made with the CLI have no creator and keep their scopes', async () => {
    const { organization, session } = await adminSession();
    const cliKey = await createApiKey(ctx.app.orm, organization.id, { permissions: ['events:write'] });
    const listed = await sessionGraphql(ctx.app.client, session, '{ apiKeys { id createdBy { id } createdInDashboard effectivePermissions } }');
    expect(listed.body.data.apiKeys).toEqual([{ id: cliKey.id, createdBy: null, createdInDashboard: false, effectivePermissions: ['events:write'] }]);
  });
});

describe('settings and usage through the session', () => {
  test('timezone for every plan; an allowlist only for ENTERPRISE; bad input is a 400 with the field', async () => {
    const { session } = await adminSession();
    const update = (input: Record<string, unknown>) =>
      sessionGraphql(ctx.app.client, session, 'mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { timezone allowedIPs restrictionMode } }', { input });
    expect((await update({ timezone: 'Europe/Paris' })).body.data.updateOrganizationSettings).toEqual({ timezone: 'Europe/Paris', allowedIPs: [], restrictionMode: 'OFF' });
    const standard = await update({ allowedIPs: ['203.0.113.0/24'], restrictionMode: 'STRICT' });
    expect(standard.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(standard.body.errors[0].extensions.details.errors.map((error: { field: string }) => error.field).sort()).toEqual(['allowedIPs', 'restrictionMode']);
    const badZone = await update({ timezone: 'Mars/Olympus' });
    expect(badZone.body.errors[0].extensions.details.errors).toEqual([expect.objectContaining({ field: 'timezone' })]);
  });

  test('the booking windows (D20, D21): read and changed by an admin session, 1 to 1440, every failing field listed; a MEMBER reads them only', async () => {
    const { organization, session } = await adminSession();
    const read = await sessionGraphql(ctx.app.client, session, '{ organization { holdMinutes waitlistOfferMinutes } }');
    expect(read.body.data.organization).toEqual({ holdMinutes: 15, waitlistOfferMinutes: 60 });
    const update = (input: Record<string, unknown>) =>
      sessionGraphql(ctx.app.client, session, 'mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { timezone holdMinutes waitlistOfferMinutes } }', { input });
    expect((await update({ holdMinutes: 1, waitlistOfferMinutes: 1440 })).body.data.updateOrganizationSettings).toEqual({ timezone: 'UTC', holdMinutes: 1, waitlistOfferMinutes: 1440 });
    expect((await update({ holdMinutes: 20 })).body.data.updateOrganizationSettings).toEqual({ timezone: 'UTC', holdMinutes: 20, waitlistOfferMinutes: 1440 });
    const refused = await update({ holdMinutes: 0, waitlistOfferMinutes: 1441, timezone: 'Mars/Olympus' });
    expect(refused.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(refused.body.errors[0].extensions.details.errors.map((error: { field: string }) => error.field).sort()).toEqual(['holdMinutes', 'timezone', 'waitlistOfferMinutes']);
    const fractional = await update({ holdMinutes: 2.5 });
    expect(fractional.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const [row] = await ctx.app.orm.em.fork().getConnection().execute('select hold_minutes, waitlist_offer_minutes from organizations where id = ?', [organization.id]);
    expect(row).toEqual({ hold_minutes: 20, waitlist_offer_minutes: 1440 });

    const member = await signIn(ctx.app.client, (await createMemberWithPassword(ctx.app.orm, organization.id, 'member')).email);
    expect((await sessionGraphql(ctx.app.client, member, '{ organization { holdMinutes } }')).body.data.organization).toEqual({ holdMinutes: 20 });
    const memberUpdate = await sessionGraphql(ctx.app.client, member, 'mutation { updateOrganizationSettings(input: {holdMinutes: 5}) { holdMinutes } }');
    expect(memberUpdate.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const memberKeyRoute = await sessionGraphql(ctx.app.client, member, 'mutation { updateOrganization(input: {holdMinutes: 5}) { holdMinutes } }');
    expect(memberKeyRoute.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: 'organization:write' } });
  });

  test('Idempotency-Key on a session mutation (D17): replayed once, scoped to the organization like a key', async () => {
    const { organization, session } = await adminSession();
    const query = 'mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { timezone } }';
    const send = (timezone: string) =>
      ctx.app.client.request('POST', '/graphql', {
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken, origin: ctx.app.client.baseUrl, 'idempotency-key': 'settings-1' },
        json: { query, variables: { input: { timezone } } },
      });
    const first = await send('Asia/Tokyo');
    expect(first.body.data.updateOrganizationSettings).toEqual({ timezone: 'Asia/Tokyo' });
    const replay = await send('Asia/Tokyo');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    // Another request under the same key in the same organization, from the session or a key: 422.
    expect((await send('UTC')).body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const { key } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['events:write'] });
    const fromKey = await ctx.app.client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'settings-1' },
      json: { query: 'mutation($input: CreateEventInput!) { createEvent(input: $input) { id } }', variables: { input: eventInput() } },
    });
    expect(fromKey.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // The same key in another organization is another key.
    const other = await adminSession();
    const elsewhere = await ctx.app.client.request('POST', '/graphql', {
      headers: { cookie: other.session.cookie, 'x-csrf-token': other.session.csrfToken, origin: ctx.app.client.baseUrl, 'idempotency-key': 'settings-1' },
      json: { query, variables: { input: { timezone: 'UTC' } } },
    });
    expect(elsewhere.body.data.updateOrganizationSettings).toEqual({ timezone: 'UTC' });
  });

  test('requests and rate-limited requests a day are counted per key and reported for 14 days', async () => {
    const organization = await createOrganization(ctx.app.orm, { rateLimitPerMinute: 2 });
    const admin = await createMemberWithPassword(ctx.app.orm, organization.id, 'admin');
    const { key, id } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['events:read'] });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await ctx.app.client.rest('GET', '/v1/events', key)).status);
    expect(statuses).toEqual([200, 200, 429]);
    await ctx.app.service.usage.flush();
    const session = await signIn(ctx.app.client, admin.email);
    const usage = (await sessionGraphql(ctx.app.client, session, '{ usage { days rateLimited keys { apiKeyId requests rateLimited } } }')).body.data.usage;
    expect(usage.days).toHaveLength(14);
    expect(usage.days[13]).toBe(new Date().toISOString().slice(0, 10));
    expect(usage.keys).toEqual([{ apiKeyId: id, requests: [...Array(13).fill(0), 3], rateLimited: [...Array(13).fill(0), 1] }]);
    expect(usage.rateLimited[13]).toBe(1);
    // The session drew nothing from the keys' exhausted budget, and the key is still limited.
    expect((await ctx.app.client.rest('GET', '/v1/events', key)).status).toBe(429);
  });
});

describe('updateOrganization for API keys: only the booking windows (D20, D21), with organization:write', () => {
  const UPDATE = 'mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id holdMinutes waitlistOfferMinutes timezone } }';

  test('a key with organization:write changes them; viewer reads them back; other organizations are untouched', async () => {
    const organization = await createOrganization(ctx.app.orm);
    const other = await createOrganization(ctx.app.orm);
    const { key } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['organization:write'] });
    const changed = await ctx.app.client.graphql(key, UPDATE, { input: { holdMinutes: 3, waitlistOfferMinutes: 30 } });
    expect(changed.body.data.updateOrganization).toEqual({ id: organization.id, holdMinutes: 3, waitlistOfferMinutes: 30, timezone: 'UTC' });
    expect((await ctx.app.client.graphql(key, UPDATE, { input: { waitlistOfferMinutes: 45 } })).body.data.updateOrganization).toMatchObject({ holdMinutes: 3, waitlistOfferMinutes: 45 });
    const viewer = await ctx.app.client.graphql(key, '{ viewer { organization { id holdMinutes waitlistOfferMinutes } } }');
    expect(viewer.body.data.viewer.organization).toEqual({ id: organization.id, holdMinutes: 3, waitlistOfferMinutes: 45 });
    const rows = await ctx.app.orm.em.fork().getConnection().execute('select id, hold_minutes, waitlist_offer_minutes from organizations where id in (?, ?) order by id = ?', [organization.id, other.id, organization.id]);
    expect(rows).toEqual([
      { id: other.id, hold_minutes: 15, waitlist_offer_minutes: 60 },
      { id: organization.id, hold_minutes: 3, waitlist_offer_minutes: 45 },
    ]);
  });

  test('out of range: 400 VALIDATION_ERROR listing every failing field, nothing changed; access settings are not in its input', async () => {
    const organization = await createOrganization(ctx.app.orm);
    const { key } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['organization:write'] });
    const refused = await ctx.app.client.graphql(key, UPDATE, { input: { holdMinutes: 0, waitlistOfferMinutes: 1441 } });
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors[0].extensions).toEqual({
      code: 'VALIDATION_ERROR',
      details: {
        errors: [
          { field: 'holdMinutes', message: 'holdMinutes must be a whole number of minutes from 1 to 1440' },
          { field: 'waitlistOfferMinutes', message: 'waitlistOfferMinutes must be a whole number of minutes from 1 to 1440' },
        ],
      },
    });
    const sneaky = await ctx.app.client.graphql(key, 'mutation { updateOrganization(input: {allowedIPs: ["0.0.0.0/0"]}) { id } }');
    expect(sneaky.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const [row] = await ctx.app.orm.em.fork().getConnection().execute('select hold_minutes, waitlist_offer_minutes, allowed_ips from organizations where id = ?', [organization.id]);
    expect(row).toEqual({ hold_minutes: 15, waitlist_offer_minutes: 60, allowed_ips: [] });
  });

  test('without organization:write: 403 FORBIDDEN, even with every other permission', async () => {
    const organization = await createOrganization(ctx.app.orm);
    const others = ALL_PERMISSIONS.filter((permission) => permission !== 'organization:write');
    const { key } = await createApiKey(ctx.app.orm, organization.id, { permissions: others });
    const forbidden = await ctx.app.client.graphql(key, UPDATE, { input: { holdMinutes: 5 } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.errors[0].extensions).toEqual({ code: 'FORBIDDEN', details: { requiredPermission: 'organization:write', currentPermissions: others } });
  });
});
