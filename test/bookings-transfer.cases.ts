import { randomUUID } from 'node:crypto';
import { bookingInput, CANCEL_BOOKING, createPublishedEvent, ticket } from './helpers/bookings';
import { createApiKey, createTenant } from './helpers/factories';
import { AUDIT_LOG, storedEntries } from './helpers/audit';
import { runCliInProcess } from './helpers/admin-cli';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';
import { codeOf, CREATE_WITH_CODE, DOORS, scan, TICKET_CODE, transfer } from './helpers/ticket-codes';

/*
 * D29, transfers through both doors (Mutation.transferBooking, POST /v1/bookings/{id}/transfer): the
 * attendee changed, a new code, the old one superseded, seats and counts untouched, the audit entry
 * with both attendees, booking.transferred (never a code); every refusal (BOOKING_NOT_CONFIRMED,
 * BOOKING_CHECKED_IN, TRANSFER_LOCKED at the lock's boundary, BOOKING_NOT_FOUND, VALIDATION_ERROR,
 * FORBIDDEN), Idempotency-Key; and the organization's transferLockMinutes (GraphQL, CLI, audit).
 */

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const client = () => ctx.app.client;
const sql = <T>(text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, values);
const GRACE = { attendeeName: 'Grace Hopper', attendeeEmail: 'grace@example.com' };
const SET_LOCK = 'mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { transferLockMinutes } }';
const MINUTE = 60_000;

async function book(key: string, slug: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; ticketCode: string }> {
  const response = await client().graphql(key, CREATE_WITH_CODE, { input: bookingInput(slug, overrides) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.createBooking;
}

const refusal = (outcome: { status: number; error?: { code: string; details?: unknown } }) => ({ status: outcome.status, code: outcome.error?.code, details: outcome.error?.details });

/** An event starting `minutes` from now (whole seconds), published. */
const startingIn = (key: string, minutes: number) => {
  const start = new Date(Date.now() + minutes * MINUTE);
  start.setUTCMilliseconds(0);
  return createPublishedEvent(client(), key, { startDate: start.toISOString(), endDate: new Date(start.getTime() + 3600_000).toISOString() });
};

describe.each(DOORS)('through %s', (door) => {
  test('the attendee changes, a new code replaces the old (which answers TICKET_TRANSFERRED), seats and counts stay; audit entry and webhook', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    await client().graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${organization.id}`, eventTypes: ['booking.transferred'] } });
    const event = await createPublishedEvent(client(), key, { capacity: 10, ticketTypes: [ticket({ quantity: 5 })] });
    const ticketTypeId = event.ticketTypes[0].id;
    const booking = await book(key, event.slug, { quantity: 3, ticketTypeId });
    const counts = async () => {
      const read = await client().rest('GET', `/v1/events/${event.slug}`, key);
      return { registrationCount: read.body.registrationCount, heldCount: read.body.heldCount, sold: read.body.ticketTypes[0].sold };
    };
    const before = await counts();

    const moved = await transfer(client(), door, key, booking.id, { ...GRACE, attendeeName: '  Grace Hopper ', reason: 'Ada cannot come' });
    expect(moved.status).toBe(200);
    expect(moved.booking).toMatchObject({ id: booking.id, status: 'CONFIRMED', ...GRACE, ticketCode: expect.stringMatching(TICKET_CODE) });
    const newCode = moved.booking!.ticketCode as string;
    expect(newCode).not.toBe(booking.ticketCode);
    expect(await codeOf(client(), key, booking.id)).toBe(newCode);
    expect(await counts()).toEqual(before);
    expect(before).toEqual({ registrationCount: 3, heldCount: 0, sold: 3 });

    expect(refusal(await scan(client(), door, key, booking.ticketCode, event.slug))).toMatchObject({ status: 409, code: 'TICKET_TRANSFERRED' });
    expect((await scan(client(), door, key, newCode, event.slug)).booking).toMatchObject({ id: booking.id, ...GRACE });

    const [entry] = await storedEntries(ctx.app.orm, organization.id, 'booking.transferred');
    expect(entry).toMatchObject({ action: 'booking.transferred', target_id: booking.id, actor_kind: 'API_KEY' });
    expect(entry.summary).toEqual({ from: { attendeeName: 'Ada Lovelace', attendeeEmail: 'ada@example.com' }, to: GRACE, reason: 'Ada cannot come' });
    const listed = await client().graphql(key, AUDIT_LOG, { action: 'booking.transferred' });
    expect(listed.body.data.auditLog.entries.map((one: { targetId: string }) => one.targetId)).toEqual([booking.id]);
    expect(JSON.stringify(entry)).not.toContain(newCode);

    const [message] = (await receiver.waitFor((all) => all.some((one) => one.path.endsWith(organization.id) && one.json.type === 'booking.transferred'))).filter(
      (one) => one.path.endsWith(organization.id) && one.json.type === 'booking.transferred',
    );
    expect(message.json.data).toMatchObject({ id: booking.id, eventSlug: event.slug, ...GRACE, status: 'CONFIRMED', quantity: 3 });
    expect(message.json.data).not.toHaveProperty('ticketCode');
    for (const code of [newCode, booking.ticketCode]) expect(message.body).not.toContain(code);
  });

  test('refusals: BOOKING_NOT_CONFIRMED (held, cancelled), BOOKING_CHECKED_IN, BOOKING_NOT_FOUND (another organization\'s); nothing changes', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const other = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(client(), key);
    const held = await book(key, event.slug, { hold: true });
    const cancelled = await book(key, event.slug);
    await client().graphql(key, CANCEL_BOOKING, { id: cancelled.id });
    const checkedIn = await book(key, event.slug);
    const scanned = await scan(client(), 'rest', key, checkedIn.ticketCode, event.slug);

    expect(refusal(await transfer(client(), door, key, held.id, GRACE))).toEqual({ status: 409, code: 'BOOKING_NOT_CONFIRMED', details: { status: 'HELD' } });
    expect(refusal(await transfer(client(), door, key, cancelled.id, GRACE))).toEqual({ status: 409, code: 'BOOKING_NOT_CONFIRMED', details: { status: 'CANCELLED' } });
    expect(refusal(await transfer(client(), door, key, checkedIn.id, GRACE))).toEqual({
      status: 409,
      code: 'BOOKING_CHECKED_IN',
      details: { checkedInAt: scanned.booking!.checkedInAt },
    });
    expect(refusal(await transfer(client(), door, other.key, checkedIn.id, GRACE))).toMatchObject({ status: 404, code: 'BOOKING_NOT_FOUND' });
    const rows = await sql<{ attendee_name: string }>('select attendee_name from bookings where id in (?, ?, ?)', [held.id, cancelled.id, checkedIn.id]);
    expect(rows.map((row) => row.attendee_name)).toEqual(['Ada Lovelace', 'Ada Lovelace', 'Ada Lovelace']);
    expect(await sql('select * from superseded_ticket_codes where booking_id in (?, ?)', [cancelled.id, checkedIn.id])).toEqual([]);
    expect(await codeOf(client(), key, checkedIn.id)).toBe(checkedIn.ticketCode);
  });

  test("TRANSFER_LOCKED from the event's start less transferLockMinutes on (lockedAt): a minute before the lock transfers, a minute after refuses", async () => {
    const { key } = await createTenant(ctx.app.orm);
    expect((await client().graphql(key, SET_LOCK, { input: { transferLockMinutes: 60 } })).body.data.updateOrganization.transferLockMinutes).toBe(60);
    const open = await startingIn(key, 61);
    const locked = await startingIn(key, 59);
    const before = await book(key, open.slug);
    const after = await book(key, locked.slug);
    expect((await transfer(client(), door, key, before.id, GRACE)).status).toBe(200);
    const lockedAt = new Date(Date.parse((locked as unknown as { startDate: string }).startDate) - 60 * MINUTE).toISOString();
    expect(refusal(await transfer(client(), door, key, after.id, GRACE))).toEqual({ status: 409, code: 'TRANSFER_LOCKED', details: { lockedAt } });
    // With no lock (0), transfers go on until the start itself.
    await client().graphql(key, SET_LOCK, { input: { transferLockMinutes: 0 } });
    expect((await transfer(client(), door, key, after.id, GRACE)).status).toBe(200);
    await sql(`update events set start_date = now() - interval '1 minute' where id = ?`, [locked.id]);
    const [{ start }] = await sql<{ start: Date }>('select start_date as start from events where id = ?', [locked.id]);
    expect(refusal(await transfer(client(), door, key, after.id, GRACE))).toEqual({ status: 409, code: 'TRANSFER_LOCKED', details: { lockedAt: new Date(start).toISOString() } });
  });

  test('bad input: 400 VALIDATION_ERROR listing every failing field; a key without bookings:write 403', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(client(), key);
    const booking = await book(key, event.slug);
    const invalid = await transfer(client(), door, key, booking.id, { attendeeName: '  ', attendeeEmail: 'not-an-email', reason: 'x'.repeat(501) });
    expect(invalid.status).toBe(400);
    expect(invalid.error?.code).toBe('VALIDATION_ERROR');
    expect((invalid.error?.details as { errors: Array<{ field: string }> }).errors.map((error) => error.field).sort()).toEqual(['attendeeEmail', 'attendeeName', 'reason']);
    expect(refusal(await transfer(client(), door, key, 'not-a-booking-id', GRACE))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    const reader = (await createApiKey(ctx.app.orm, organization.id, { permissions: ['bookings:read'] })).key;
    expect(refusal(await transfer(client(), door, reader, booking.id, GRACE))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(await codeOf(client(), key, booking.id)).toBe(booking.ticketCode);
  });

  test('Idempotency-Key: a retry replays the first answer (same new code, Idempotent-Replayed), one code superseded, one audit entry', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const event = await createPublishedEvent(client(), key);
    const booking = await book(key, event.slug);
    const headers = { 'idempotency-key': randomUUID() };
    const first = await transfer(client(), door, key, booking.id, GRACE, headers);
    const retried = await transfer(client(), door, key, booking.id, GRACE, headers);
    expect(first.status).toBe(200);
    expect([retried.response.status, retried.response.text, retried.response.headers['idempotent-replayed']]).toEqual([200, first.response.text, 'true']);
    expect(await sql('select booking_id from superseded_ticket_codes where booking_id = ?', [booking.id])).toHaveLength(1);
    expect(await storedEntries(ctx.app.orm, organization.id, 'booking.transferred')).toHaveLength(1);
    // The same key with another attendee: 422, nothing more changes.
    const reused = await transfer(client(), door, key, booking.id, { ...GRACE, attendeeName: 'Someone Else' }, headers);
    expect(reused.status).toBe(422);
    expect(await codeOf(client(), key, booking.id)).toBe(first.booking!.ticketCode);
  });
});

test('a booking transferred twice: both earlier codes answer TICKET_TRANSFERRED, each with its own time; only the last scans', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(client(), key);
  const booking = await book(key, event.slug);
  const once = (await transfer(client(), 'graphql', key, booking.id, GRACE)).booking!;
  const twice = (await transfer(client(), 'rest', key, booking.id, { attendeeName: 'Ada Lovelace', attendeeEmail: 'ada@example.com' })).booking!;
  const times = await sql<{ at: Date }>('select superseded_at as at from superseded_ticket_codes where booking_id = ? order by superseded_at', [booking.id]);
  expect(times).toHaveLength(2);
  expect(refusal(await scan(client(), 'rest', key, booking.ticketCode, event.slug)).details).toEqual({ transferredAt: new Date(times[0].at).toISOString() });
  expect(refusal(await scan(client(), 'rest', key, once.ticketCode, event.slug)).details).toEqual({ transferredAt: new Date(times[1].at).toISOString() });
  expect((await scan(client(), 'rest', key, twice.ticketCode, event.slug)).status).toBe(200);
});

describe('transferLockMinutes, an organization setting (0 to 10,080, default 0)', () => {
  const VIEWER = '{ viewer { organization { transferLockMinutes holdMinutes } } }';

  test('read and changed with GraphQL (organization:write), checked, audited like the other settings', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    expect((await client().graphql(key, VIEWER)).body.data.viewer.organization).toEqual({ transferLockMinutes: 0, holdMinutes: 15 });
    for (const value of [-1, 10_081, 1.5]) {
      const refused = await client().graphql(key, SET_LOCK, { input: { transferLockMinutes: value } });
      expect(refused.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    }
    expect((await client().graphql(key, SET_LOCK, { input: { transferLockMinutes: 10_080 } })).body.data.updateOrganization.transferLockMinutes).toBe(10_080);
    expect((await client().graphql(key, VIEWER)).body.data.viewer.organization.transferLockMinutes).toBe(10_080);
    const entries = await storedEntries(ctx.app.orm, organization.id, 'organization.settings_changed');
    expect(entries.map((entry) => entry.summary)).toEqual([{ transferLockMinutes: { from: 0, to: 10_080 } }]);
    const reader = (await createApiKey(ctx.app.orm, organization.id, { permissions: ['bookings:read'] })).key;
    expect((await client().graphql(reader, SET_LOCK, { input: { transferLockMinutes: 5 } })).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  test('admin org update --transfer-lock-minutes N', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const updated = await runCliInProcess(ctx.app.databaseUrl, ['org', 'update', organization.id, '--transfer-lock-minutes', '120']);
    expect([updated.code, updated.json?.transferLockMinutes]).toEqual([0, 120]);
    expect((await client().graphql(key, VIEWER)).body.data.viewer.organization.transferLockMinutes).toBe(120);
    const tooLong = await runCliInProcess(ctx.app.databaseUrl, ['org', 'update', organization.id, '--transfer-lock-minutes', '10081']);
    expect(tooLong.code).not.toBe(0);
    expect(tooLong.stderr).toContain('--transfer-lock-minutes must be at most 10080');
    const [entry] = await storedEntries(ctx.app.orm, organization.id, 'organization.settings_changed');
    expect(entry).toMatchObject({ actor_kind: 'CLI', summary: { transferLockMinutes: { from: 0, to: 120 } } });
  });
});
