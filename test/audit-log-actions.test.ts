import { runAdminInProcess } from './helpers/admin-cli';
import { AUDIT_LOG, graphqlAs, restAs, storedEntries, type AuditEntryView, type Caller } from './helpers/audit';
import { createMemberWithPassword, signIn } from './helpers/dashboard';
import { ALL_PERMISSIONS, createApiKey, createTenant, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';
import { WEBHOOK_TEST_ENV } from './helpers/webhook-receiver';

/*
 * D26: each audited action writes exactly one entry, with the right action, actor, target, request id
 * and client address, through every door it has (GraphQL with a key, REST, the dashboard's session,
 * the admin CLI), read back through Query.auditLog; never a secret in an entry.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp(WEBHOOK_TEST_ENV);
});
afterAll(() => app.close());

jest.setTimeout(60_000);

/** The admin CLI on the test app's database (private webhook destinations allowed, as the server is). */
const admin = (...args: string[]) => runAdminInProcess(args, { ...process.env, DATABASE_URL: app.databaseUrl, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });

/** When the current test's tenant was set up: its own changes come after (the factories' are the system's). */
let since = new Date();

/** A tenant whose key holds every permission (audit:read included), an admin signed in, and the key's prefix. */
async function tenant() {
  const { organization, key, keyId } = await createTenant(app.orm);
  const adminMember = await createMemberWithPassword(app.orm, organization.id, 'admin');
  const session = await signIn(app.client, adminMember.email);
  const [{ prefix }] = await app.orm.em.fork().getConnection().execute('select prefix from api_keys where id = ?', [keyId]);
  since = new Date();
  return { organization, key, keyId, prefix: prefix as string, adminMember, session };
}

/** The entries of `action` since the tenant was set up, read through GraphQL by `reader`, newest first. */
async function logOf(reader: Caller, action: string): Promise<AuditEntryView[]> {
  const response = await graphqlAs(app.client, reader, AUDIT_LOG, { action, since: since.toISOString(), limit: 100 });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.auditLog.entries;
}

/** Exactly one entry of `action` since the tenant was set up, and it. */
async function onlyEntry(reader: Caller, action: string): Promise<AuditEntryView> {
  const entries = await logOf(reader, action);
  expect(entries.map((entry) => entry.action)).toEqual([action]);
  return entries[0];
}

test('events: published, cancelled and deleted through GraphQL and REST, each one entry by the key; other updates none', async () => {
  const { organization, key, keyId, prefix } = await tenant();
  const byKey = { kind: 'API_KEY', id: keyId, label: prefix };
  const created = await graphqlAs(app.client, { key }, `mutation($input: CreateEventInput!) { createEvent(input: $input) { id slug } }`, { input: eventInput() });
  const event = created.body.data.createEvent;
  const retitled = await graphqlAs(app.client, { key }, `mutation($slug: String!) { updateEvent(slug: $slug, input: { title: "Renamed" }) { id } }`, { slug: event.slug });
  expect(retitled.body.errors).toBeUndefined();
  expect(await storedEntries(app.orm, organization.id, 'event.published')).toEqual([]);

  const published = await graphqlAs(app.client, { key }, `mutation($slug: String!) { updateEvent(slug: $slug, input: { status: PUBLISHED }) { id status } }`, { slug: event.slug });
  expect(published.body.data.updateEvent.status).toBe('PUBLISHED');
  expect(await onlyEntry({ key }, 'event.published')).toEqual({
    id: expect.stringMatching(/^aud_[A-Za-z0-9]{20}$/),
    action: 'event.published',
    actor: byKey,
    targetId: event.id,
    summary: { slug: event.slug, from: 'DRAFT', to: 'PUBLISHED' },
    clientIp: '127.0.0.1',
    requestId: published.requestId,
    createdAt: expect.stringMatching(/Z$/),
  });

  const cancelled = await restAs(app.client, key, 'PUT', `/v1/events/${event.slug}`, { status: 'CANCELLED' });
  expect(cancelled.status).toBe(200);
  expect(await onlyEntry({ key }, 'event.cancelled')).toMatchObject({
    actor: byKey,
    targetId: event.id,
    summary: { slug: event.slug, from: 'PUBLISHED', to: 'CANCELLED' },
    clientIp: '127.0.0.1',
    requestId: cancelled.requestId,
  });

  const deleted = await restAs(app.client, key, 'DELETE', `/v1/events/${event.slug}`);
  expect(deleted.status).toBe(204);
  const other = (await restAs(app.client, key, 'POST', '/v1/events', eventInput())).body;
  const deletedByGraphql = await graphqlAs(app.client, { key }, `mutation($slug: String!) { deleteEvent(slug: $slug) { id } }`, { slug: other.slug });
  expect(deletedByGraphql.body.errors).toBeUndefined();
  const deletions = await logOf({ key }, 'event.deleted');
  expect(deletions.map(({ targetId, requestId, summary }) => ({ targetId, requestId, summary }))).toEqual([
    { targetId: other.id, requestId: deletedByGraphql.requestId, summary: { slug: other.slug } },
    { targetId: event.id, requestId: deleted.requestId, summary: { slug: event.slug } },
  ]);
  // A refused change leaves nothing: deleting again (not found), publishing a deleted event.
  expect((await restAs(app.client, key, 'DELETE', `/v1/events/${event.slug}`)).status).toBe(404);
  expect((await restAs(app.client, key, 'PUT', `/v1/events/${event.slug}`, { status: 'PUBLISHED' })).status).toBe(404);
  expect(await storedEntries(app.orm, organization.id, 'event.deleted')).toHaveLength(2);
  expect(await storedEntries(app.orm, organization.id, 'event.published')).toHaveLength(1);
});

test('keys: created, rotated and revoked from the dashboard (the member) and the CLI (cli); never the key or its hash', async () => {
  const { organization, adminMember, session, key } = await tenant();
  const byMember = { kind: 'MEMBER', id: adminMember.id, label: adminMember.email };
  const made = await graphqlAs(app.client, { session }, `mutation { createApiKey(input: { name: "scanner", permissions: ["events:read"] }) { key apiKey { id prefix } } }`);
  const { apiKey, key: secret } = made.body.data.createApiKey;
  expect(await onlyEntry({ key }, 'api_key.created')).toMatchObject({
    actor: byMember,
    targetId: apiKey.id,
    summary: { name: 'scanner', prefix: apiKey.prefix, permissions: ['events:read'] },
    clientIp: '127.0.0.1',
    requestId: made.requestId,
  });
  const rotated = await graphqlAs(app.client, { session }, `mutation($id: ID!) { rotateApiKey(id: $id, graceHours: 1) { key apiKey { id } } }`, { id: apiKey.id });
  const replacement = rotated.body.data.rotateApiKey;
  expect(await onlyEntry({ key }, 'api_key.rotated')).toMatchObject({
    actor: byMember,
    targetId: apiKey.id,
    summary: { name: 'scanner', prefix: apiKey.prefix, replacementId: replacement.apiKey.id, replacementPrefix: expect.stringMatching(/^nk_live_/) },
    requestId: rotated.requestId,
  });
  // The rotation wrote no second "created" entry for its replacement.
  expect(await logOf({ key }, 'api_key.created')).toHaveLength(1);
  const revoked = await graphqlAs(app.client, { session }, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: replacement.apiKey.id });
  expect(await onlyEntry({ key }, 'api_key.revoked')).toMatchObject({ actor: byMember, targetId: replacement.apiKey.id, requestId: revoked.requestId });
  // Revoking a revoked key changes nothing, and records nothing.
  await graphqlAs(app.client, { session }, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: replacement.apiKey.id });
  expect(await logOf({ key }, 'api_key.revoked')).toHaveLength(1);

  const cli = await admin('key', 'create', '--org', organization.id, '--name', 'cli key', '--permissions', 'audit:read');
  const cliKey = cli.json;
  await admin('key', 'rotate', cliKey.id, '--grace-hours', '0');
  await admin('key', 'revoke', cliKey.id);
  const byCli = { kind: 'CLI', id: null, label: 'cli' };
  for (const action of ['api_key.created', 'api_key.rotated', 'api_key.revoked']) {
    const entries = (await logOf({ key }, action)).filter((entry) => entry.targetId === cliKey.id);
    expect(entries).toEqual([expect.objectContaining({ actor: byCli, clientIp: null, requestId: null })]);
  }
  const everything = JSON.stringify(await storedEntries(app.orm, organization.id));
  const hashes = await app.orm.em.fork().getConnection().execute<Array<{ key_hash: string }>>('select key_hash from api_keys where organization_id = ?', [organization.id]);
  for (const text of [secret, replacement.key, cliKey.key, key, ...hashes.map((row) => row.key_hash)]) expect(everything).not.toContain(text);
});

test('members: invited, role changed and removed from the dashboard, added, invited and removed from the CLI; never a token', async () => {
  const { organization, adminMember, session, key } = await tenant();
  const byMember = { kind: 'MEMBER', id: adminMember.id, label: adminMember.email };
  const invited = await graphqlAs(app.client, { session }, `mutation { inviteMember(input: { email: "ada@example.com", name: "Ada", role: MEMBER }) { path member { id } } }`);
  const { path, member } = invited.body.data.inviteMember;
  expect(await onlyEntry({ key }, 'member.invited')).toMatchObject({
    actor: byMember,
    targetId: member.id,
    summary: { email: 'ada@example.com', role: 'MEMBER' },
    requestId: invited.requestId,
    clientIp: '127.0.0.1',
  });
  const promoted = await graphqlAs(app.client, { session }, `mutation($id: ID!) { changeMemberRole(id: $id, role: ADMIN) { id } }`, { id: member.id });
  expect(await onlyEntry({ key }, 'member.role_changed')).toMatchObject({
    actor: byMember,
    targetId: member.id,
    summary: { email: 'ada@example.com', from: 'MEMBER', to: 'ADMIN' },
    requestId: promoted.requestId,
  });
  // The same role again changes nothing: no entry.
  await graphqlAs(app.client, { session }, `mutation($id: ID!) { changeMemberRole(id: $id, role: ADMIN) { id } }`, { id: member.id });
  expect(await logOf({ key }, 'member.role_changed')).toHaveLength(1);
  const reinvited = await graphqlAs(app.client, { session }, `mutation($id: ID!) { reinviteMember(id: $id) { path } }`, { id: member.id });
  const removed = await graphqlAs(app.client, { session }, `mutation($id: ID!) { removeMember(id: $id) { id } }`, { id: member.id });
  expect(await onlyEntry({ key }, 'member.removed')).toMatchObject({ actor: byMember, targetId: member.id, requestId: removed.requestId });

  const added = (await admin('member', 'add', '--org', organization.id, '--email', 'grace@example.com', '--name', 'Grace')).json;
  await admin('member', 'invite', added.id);
  await admin('member', 'remove', added.id);
  const byCli = expect.objectContaining({ actor: { kind: 'CLI', id: null, label: 'cli' }, targetId: added.id, clientIp: null, requestId: null });
  expect(await onlyEntry({ key }, 'member.added')).toEqual(byCli);
  expect((await logOf({ key }, 'member.invited')).filter((entry) => entry.targetId === added.id)).toEqual([byCli]);
  expect((await logOf({ key }, 'member.removed')).filter((entry) => entry.targetId === added.id)).toEqual([byCli]);

  const everything = JSON.stringify(await storedEntries(app.orm, organization.id));
  for (const link of [path, reinvited.body.data.reinviteMember.path]) expect(everything).not.toContain(link.split('/').pop());
});

test('settings and allowlist: old and new values of what changed, by the session, a key with organization:write and the CLI', async () => {
  const { organization, session, key, keyId, adminMember } = await tenant();
  const changed = await graphqlAs(app.client, { session }, `mutation { updateOrganizationSettings(input: { timezone: "Europe/Paris", holdMinutes: 30 }) { timezone } }`);
  expect(changed.body.errors).toBeUndefined();
  expect(await onlyEntry({ key }, 'organization.settings_changed')).toMatchObject({
    actor: { kind: 'MEMBER', id: adminMember.id },
    targetId: organization.id,
    summary: { timezone: { from: 'UTC', to: 'Europe/Paris' }, holdMinutes: { from: 15, to: 30 } },
    requestId: changed.requestId,
  });
  // An allowlist on a STANDARD plan is refused: nothing changed, nothing recorded.
  const refused = await graphqlAs(app.client, { session }, `mutation { updateOrganizationSettings(input: { allowedIPs: ["10.0.0.0/8"] }) { timezone } }`);
  expect(refused.body.errors?.[0].extensions.code).toBe('VALIDATION_ERROR');
  expect(await storedEntries(app.orm, organization.id, 'organization.allowlist_changed')).toEqual([]);

  const byKey = await graphqlAs(app.client, { key }, `mutation { updateOrganization(input: { waitlistOfferMinutes: 90 }) { waitlistOfferMinutes } }`);
  expect(byKey.body.errors).toBeUndefined();
  const entries = await logOf({ key }, 'organization.settings_changed');
  expect(entries[0]).toMatchObject({ actor: { kind: 'API_KEY', id: keyId }, summary: { waitlistOfferMinutes: { from: 60, to: 90 } }, requestId: byKey.requestId });

  await admin('org', 'update', organization.id, '--plan', 'ENTERPRISE', '--allowed-ips', '127.0.0.1,10.0.0.0/8');
  expect(await onlyEntry({ key }, 'organization.allowlist_changed')).toMatchObject({
    actor: { kind: 'CLI', label: 'cli' },
    summary: { allowedIps: { from: [], to: ['127.0.0.1', '10.0.0.0/8'] } },
  });
  expect((await logOf({ key }, 'organization.settings_changed'))[0]).toMatchObject({ actor: { kind: 'CLI' }, summary: { plan: { from: 'STANDARD', to: 'ENTERPRISE' } } });
});

test('webhook endpoints: created, changed, secret rotated and deleted; the summary names the URL, never a secret', async () => {
  const { organization, key, keyId, prefix } = await tenant();
  const byKey = { kind: 'API_KEY', id: keyId, label: prefix };
  const url = 'https://127.0.0.1:9/hooks?tag=a';
  const created = await graphqlAs(app.client, { key }, `mutation($url: String!) { createWebhookEndpoint(input: { url: $url, eventTypes: ["booking.created"] }) { secret endpoint { id } } }`, { url });
  const { secret, endpoint } = created.body.data.createWebhookEndpoint;
  expect(await onlyEntry({ key }, 'webhook_endpoint.created')).toMatchObject({
    actor: byKey,
    targetId: endpoint.id,
    summary: { url, eventTypes: ['booking.created'], enabled: true },
    requestId: created.requestId,
  });
  const moved = await graphqlAs(app.client, { key }, `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { url: "https://127.0.0.1:9/hooks?tag=b" }) { id } }`, { id: endpoint.id });
  expect(await onlyEntry({ key }, 'webhook_endpoint.updated')).toMatchObject({
    targetId: endpoint.id,
    summary: { url: { from: url, to: 'https://127.0.0.1:9/hooks?tag=b' } },
    requestId: moved.requestId,
  });
  const rotated = await graphqlAs(app.client, { key }, `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, { id: endpoint.id });
  expect(await onlyEntry({ key }, 'webhook_endpoint.secret_rotated')).toMatchObject({ actor: byKey, targetId: endpoint.id, requestId: rotated.requestId });
  const deleted = await graphqlAs(app.client, { key }, `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }`, { id: endpoint.id });
  expect(await onlyEntry({ key }, 'webhook_endpoint.deleted')).toMatchObject({ targetId: endpoint.id, requestId: deleted.requestId });

  const cli = (await admin('webhook', 'create', '--org', organization.id, '--url', 'https://127.0.0.1:9/cli')).json;
  await admin('webhook', 'delete', cli.id);
  for (const action of ['webhook_endpoint.created', 'webhook_endpoint.deleted']) {
    expect((await logOf({ key }, action)).filter((entry) => entry.targetId === cli.id)).toEqual([expect.objectContaining({ actor: { kind: 'CLI', id: null, label: 'cli' } })]);
  }
  const everything = JSON.stringify(await storedEntries(app.orm, organization.id));
  const sealed = await app.orm.em.fork().getConnection().execute<Array<{ secret_ciphertext: string }>>('select secret_ciphertext from webhook_endpoints where organization_id = ?', [organization.id]);
  for (const text of [secret, rotated.body.data.rotateWebhookSecret.secret, cli.secret, ...sealed.map((row) => row.secret_ciphertext)]) {
    expect(everything).not.toContain(text);
  }
});

test('a key made by the CLI with audit:read reads the log; another organization sees none of these entries', async () => {
  const { organization } = await tenant();
  const reader = (await admin('key', 'create', '--org', organization.id, '--name', 'auditor', '--permissions', 'audit:read')).json;
  const read = await graphqlAs(app.client, { key: reader.key }, AUDIT_LOG, { action: 'api_key.created' });
  expect(read.status).toBe(200);
  expect(read.body.data.auditLog.entries.map((entry: AuditEntryView) => entry.targetId)).toContain(reader.id);
  const other = await createApiKey(app.orm, (await createTenant(app.orm)).organization.id, { permissions: ALL_PERMISSIONS });
  const foreign = await graphqlAs(app.client, { key: other.key }, AUDIT_LOG, { action: 'api_key.created', limit: 100 });
  expect(foreign.body.data.auditLog.entries.map((entry: AuditEntryView) => entry.targetId)).not.toContain(reader.id);
});
