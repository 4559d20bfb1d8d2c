import { randomUUID } from 'node:crypto';
import { revokeApiKey } from '../src/modules/api-key/commands/revoke-api-key';
import { deleteEvent } from '../src/modules/event/commands/delete-event';
import { updateEvent } from '../src/modules/event/commands/update-event';
import { UpdateEventInput } from '../src/modules/event/event.inputs';
import { EventStatus } from '../src/modules/event/event-status';
import { OPERATOR } from '../src/platform/auth/actor';
import type { UnitOfWorkScope } from '../src/platform/db/unit-of-work-scope';
import { AUDIT_ACTIONS, summaryOf } from '../src/platform/audit/audit-log';
import { AUDIT_ACTION_NAMES } from '../src/doors/dashboard/frontend/audit-actions';
import { AUDIT_LOG, graphqlAs, restAs, storedEntries, type AuditEntryView } from './helpers/audit';
import { inputOf } from './helpers/command-database';
import { createMemberWithPassword, signIn } from './helpers/dashboard';
import { createApiKey, createTenant, eventInput } from './helpers/factories';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * D26: Query.auditLog's filters and pages, who may read it (audit:read: an ADMIN's session, a key
 * granted it; never a MEMBER), an entry that rolls back with its change, append-only in the database,
 * and the retention job deleting only entries older than 400 days.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

jest.setTimeout(60_000);

const connection = () => app.orm.em.fork().getConnection();

/** Entries of the organization written directly (as the log's writer would), a minute apart, oldest first; returns their ids. */
async function seed(organizationId: string, rows: Array<{ action: string; actorKind?: string; actorId?: string | null; label?: string; daysAgo?: number }>): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, row] of rows.entries()) {
    const id = `aud_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    ids.push(id);
    await connection().execute(
      `insert into audit_log (id, organization_id, action, actor_kind, actor_id, actor_label, target_id, summary, created_at)
       values (?, ?, ?, ?, ?, ?, 'x', '{}', now() - ?::float8 * interval '1 day' - ?::int * interval '1 minute')`,
      [id, organizationId, row.action, row.actorKind ?? 'CLI', row.actorId ?? null, row.label ?? 'cli', row.daysAgo ?? 0, rows.length - index],
    );
  }
  return ids;
}

test('filters by action and actor (key prefix or id, member email or id, cli) and by a date range', async () => {
  const { organization, key } = await createTenant(app.orm);
  const since = new Date(Date.now() - 10 * 86_400_000);
  await seed(organization.id, [
    { action: 'member.removed', daysAgo: 20 },
    { action: 'api_key.revoked', actorKind: 'API_KEY', actorId: 'key_one', label: 'nk_test_ab12' },
    { action: 'api_key.revoked', actorKind: 'MEMBER', actorId: 'mem_one', label: 'ada@example.com', daysAgo: 2 },
    { action: 'member.removed' },
  ]);
  const read = async (variables: Record<string, unknown>) => {
    const response = await graphqlAs(app.client, { key }, AUDIT_LOG, { since: since.toISOString(), ...variables });
    expect(response.body.errors).toBeUndefined();
    return response.body.data.auditLog as { entries: AuditEntryView[]; total: number };
  };
  expect((await read({ action: 'api_key.revoked' })).entries.map((entry) => entry.actor.label)).toEqual(['nk_test_ab12', 'ada@example.com']);
  for (const actor of ['nk_test_ab12', 'key_one']) expect((await read({ actor })).entries.map((entry) => entry.actor.id)).toEqual(['key_one']);
  for (const actor of ['ada@example.com', 'mem_one']) expect((await read({ actor })).entries.map((entry) => entry.actor.id)).toEqual(['mem_one']);
  expect((await read({ actor: 'cli' })).entries.map((entry) => entry.action)).toEqual(['member.removed']);
  // The 20-day-old entry is before `since` (the tenant's key, made now, is the fourth); `until` leaves out the newer ones.
  expect((await read({})).total).toBe(4);
  expect((await read({ since: null })).total).toBe(5);
  const older = await read({ until: new Date(Date.now() - 86_400_000).toISOString() });
  expect(older.entries.map((entry) => entry.actor.label)).toEqual(['ada@example.com']);
});

test('pages by number and by cursor, newest first, with the total on every page', async () => {
  const { organization, key } = await createTenant(app.orm);
  const since = new Date(Date.now() - 60_000 * 100).toISOString();
  const ids = await seed(organization.id, Array.from({ length: 7 }, () => ({ action: 'event.deleted' })));
  const newestFirst = [...ids].reverse();
  const page = async (variables: Record<string, unknown>) =>
    (await graphqlAs(app.client, { key }, AUDIT_LOG, { action: 'event.deleted', since, limit: 3, ...variables })).body.data.auditLog;
  const second = await page({ page: 2 });
  expect(second).toMatchObject({ total: 7, page: 2, limit: 3 });
  expect(second.entries.map((entry: AuditEntryView) => entry.id)).toEqual(newestFirst.slice(3, 6));
  const walked: string[] = [];
  let after: string | null = null;
  for (let round = 0; round < 5; round += 1) {
    const answer = await page({ after });
    walked.push(...answer.entries.map((entry: AuditEntryView) => entry.id));
    after = answer.nextCursor;
    if (after === null) break;
  }
  expect(walked).toEqual(newestFirst);
  // A cursor is bound to its filters, and does not combine with a page number.
  const first = await page({});
  const otherFilter = await graphqlAs(app.client, { key }, AUDIT_LOG, { action: 'member.removed', since, after: first.nextCursor });
  expect(otherFilter.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ field: 'after' }] } });
  const both = await graphqlAs(app.client, { key }, AUDIT_LOG, { action: 'event.deleted', since, page: 2, after: first.nextCursor });
  expect(both.body.errors[0].extensions.details.errors).toEqual([{ field: 'page', message: expect.any(String) }]);
});

test('bad filters are one VALIDATION_ERROR naming each field; a limit out of range is 400 before anything runs', async () => {
  const { key } = await createTenant(app.orm);
  const bad = await graphqlAs(app.client, { key }, AUDIT_LOG, { action: 'api_key.exploded', actor: '', since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' });
  expect(bad.body.data).toBeNull();
  expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  expect(bad.body.errors[0].extensions.details.errors.map((error: { field: string }) => error.field)).toEqual(['action', 'actor', 'until']);
  const tooMany = await graphqlAs(app.client, { key }, AUDIT_LOG, { limit: 101 });
  expect(tooMany.status).toBe(400);
  expect(tooMany.body.errors[0].extensions.details.errors).toEqual([{ field: 'limit', message: 'limit must be between 1 and 100' }]);
});

test('audit:read: a key without it and a MEMBER session are refused; an ADMIN session and a key granted it read', async () => {
  const { organization } = await createTenant(app.orm);
  const withoutIt = await createApiKey(app.orm, organization.id, { permissions: ['events:read', 'members:read', 'webhooks:read', 'bookings:read'] });
  const refused = await graphqlAs(app.client, { key: withoutIt.key }, AUDIT_LOG);
  expect(refused.status).toBe(403);
  expect(refused.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: 'audit:read' } });

  const member = await createMemberWithPassword(app.orm, organization.id, 'member');
  const memberSession = await signIn(app.client, member.email);
  const memberInfo = await app.client.request('GET', '/dashboard/api/session', { headers: { cookie: memberSession.cookie } });
  expect(memberInfo.body.permissions).toEqual(['events:read', 'bookings:read', 'members:read', 'webhooks:read']);
  const memberRead = await graphqlAs(app.client, { session: memberSession }, AUDIT_LOG);
  expect(memberRead.status).toBe(403);
  expect(memberRead.body.errors[0].extensions.code).toBe('FORBIDDEN');

  const adminMember = await createMemberWithPassword(app.orm, organization.id, 'admin');
  const adminSession = await signIn(app.client, adminMember.email);
  const adminRead = await graphqlAs(app.client, { session: adminSession }, AUDIT_LOG, { action: 'member.added' });
  expect(adminRead.status).toBe(200);
  expect(adminRead.body.data.auditLog.entries.map((entry: AuditEntryView) => entry.targetId)).toContain(member.id);
  // An admin may grant it to a key made in the dashboard; that key reads the log.
  const granted = await graphqlAs(app.client, { session: adminSession }, `mutation { createApiKey(input: { name: "auditor", permissions: ["audit:read"] }) { key } }`);
  const byGranted = await graphqlAs(app.client, { key: granted.body.data.createApiKey.key }, AUDIT_LOG, { action: 'api_key.created' });
  expect(byGranted.body.data.auditLog.total).toBeGreaterThanOrEqual(1);
});

/** `work` in a transaction that fails after it: the change and its entry roll back together. */
async function rolledBack(work: (scope: UnitOfWorkScope) => Promise<unknown>): Promise<void> {
  await expect(
    app.orm.em.fork().transactional(async (tx) => {
      await work({ em: tx, actor: OPERATOR });
      throw new Error('failed after the change');
    }),
  ).rejects.toThrow('failed after the change');
}

test('an entry rolls back with its change: a statement of its own (a revocation) and a CTE of the change (publish, delete)', async () => {
  const { organization, key, keyId } = await createTenant(app.orm);
  const event = (await restAs(app.client, key, 'POST', '/v1/events', eventInput())).body;
  await rolledBack((em) => revokeApiKey(em, organization.id, keyId));
  await rolledBack((em) => updateEvent(em, organization.id, event.slug, inputOf(UpdateEventInput, { status: EventStatus.PUBLISHED })));
  await rolledBack((em) => deleteEvent(em, organization.id, event.slug));
  const [stored] = await connection().execute('select status, (select revoked_at from api_keys where id = ?) as revoked_at from events where id = ?', [keyId, event.id]);
  expect(stored).toEqual({ status: 'DRAFT', revoked_at: null });
  expect((await storedEntries(app.orm, organization.id)).map((entry) => entry.action)).toEqual(['api_key.created']);
  // The same changes, committed, write one entry each.
  await deleteEvent({ em: app.orm.em.fork(), actor: OPERATOR }, organization.id, event.slug);
  expect((await storedEntries(app.orm, organization.id, 'event.deleted')).map((entry) => [entry.actor_kind, entry.target_id])).toEqual([['CLI', event.id]]);
});

test('with an Idempotency-Key, a retry replays the answer and writes no second entry', async () => {
  const { organization, key } = await createTenant(app.orm);
  const event = (await restAs(app.client, key, 'POST', '/v1/events', eventInput())).body;
  const idempotencyKey = randomUUID();
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const response = await app.client.request('PUT', `/v1/events/${event.slug}`, {
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
      json: { status: 'PUBLISHED' },
    });
    expect(response.status).toBe(200);
  }
  expect(await storedEntries(app.orm, organization.id, 'event.published')).toHaveLength(1);
});

test('entries are never edited: UPDATE and an early DELETE are refused by the database', async () => {
  const { organization } = await createTenant(app.orm);
  const [id] = await seed(organization.id, [{ action: 'member.removed' }]);
  await expect(connection().execute(`update audit_log set action = 'member.added' where id = ?`, [id])).rejects.toThrow(/never edited/);
  await expect(connection().execute(`delete from audit_log where id = ?`, [id])).rejects.toThrow(/kept 400 days/);
  expect(await storedEntries(app.orm, organization.id, 'member.removed')).toHaveLength(1);
});

test('the retention job deletes entries older than 400 days, and only those', async () => {
  const { organization } = await createTenant(app.orm);
  const [old, young] = await seed(organization.id, [
    { action: 'member.removed', daysAgo: 401 },
    { action: 'member.removed', daysAgo: 399 },
  ]);
  expect(await app.service.retention.runOnce()).toBe('completed');
  const left = (await storedEntries(app.orm, organization.id, 'member.removed')).map((entry) => entry.id);
  expect(left).toContain(young);
  expect(left).not.toContain(old);
});

test('the dashboard offers every audited action in its filter; a summary never keeps a field named like a secret', () => {
  expect(AUDIT_ACTION_NAMES.map(([action]) => action)).toEqual([...AUDIT_ACTIONS]);
  expect(summaryOf({ url: 'https://x', secret: 'whsec_x', nested: { keyHash: 'ab', password: 'p', token: 't', key: 'nk_live_x', name: 'kept' }, list: [{ signingSecret: 's' }] })).toEqual({
    url: 'https://x',
    nested: { name: 'kept' },
    list: [{}],
  });
});

