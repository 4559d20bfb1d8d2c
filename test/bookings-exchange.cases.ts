import { randomUUID } from 'node:crypto';
import { bookingInput, CANCEL_BOOKING, createPublishedEvent, expectConsistent, storedCounts, ticket, type CreatedEvent } from './helpers/bookings';
import { createApiKey, createTenant, eventInput } from './helpers/factories';
import { AUDIT_LOG, storedEntries } from './helpers/audit';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';
import { codeOf, CREATE_WITH_CODE, DOORS, exchange, scan, TICKET_CODE } from './helpers/ticket-codes';

/*
 * D29, exchanges through both doors (Mutation.exchangeBooking, POST /v1/bookings/{id}/exchange): the
 * booking keeps its id and moves to another event (its event, ticket type and slot), seats taken at the
 * target and freed at the source, a new code (the old one answers TICKET_TRANSFERRED at any gate, the
 * new one checks in at the target), the audit entry and booking.exchanged (from and to, never a code);
 * every refusal with nothing changed (SOLD_OUT with createBooking's details), Idempotency-Key, tenancy.
 * Inventory modes, holds, the waiting list and races: bookings-exchange-seats.cases.ts.
 */

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const client = () => ctx.app.client;
const sql = <T>(text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, values);
const MINUTE = 60_000;

async function book(key: string, slug: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; ticketCode: string }> {
  const response = await client().graphql(key, CREATE_WITH_CODE, { input: bookingInput(slug, overrides) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.createBooking;
}

const refusal = (outcome: { status: number; error?: { code: string; details?: unknown } }) => ({ status: outcome.status, code: outcome.error?.code, details: outcome.error?.details });

async function shown(key: string, slug: string) {
  const read = await client().rest('GET', `/v1/events/${slug}`, key);
  return { registrationCount: read.body.registrationCount, heldCount: read.body.heldCount, sold: read.body.ticketTypes.map((type: { sold: number }) => type.sold) };
}

const twoEvents = async (key: string, target: Record<string, unknown> = {}) => ({
  source: await createPublishedEvent(client(), key, { capacity: 10, ticketTypes: [ticket({ quantity: 6 })] }),
  target: await createPublishedEvent(client(), key, { capacity: 10, ticketTypes: [ticket({ name: 'Standing', quantity: 5 }), ticket({ name: 'Seated', quantity: 5 })], ...target }),
});

describe.each(DOORS)('through %s', (door) => {
  test('the booking moves (same id, the target event and ticket type), counts move, a new code checks in at the target; the old one answers TICKET_TRANSFERRED at any gate; audit entry and webhook', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    await client().graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${organization.id}`, eventTypes: ['booking.exchanged'] } });
    const { source, target } = await twoEvents(key);
    const seated = target.ticketTypes[1].id;
    const booking = await book(key, source.slug, { quantity: 3, ticketTypeId: source.ticketTypes[0].id });

    const moved = await exchange(client(), door, key, booking.id, { eventSlug: target.slug, ticketTypeId: seated });
    expect(moved.status).toBe(200);
    expect(moved.booking).toMatchObject({ id: booking.id, eventId: target.id, eventSlug: target.slug, ticketTypeId: seated, quantity: 3, status: 'CONFIRMED' });
    const newCode = moved.booking!.ticketCode as string;
    expect(newCode).toMatch(TICKET_CODE);
    expect(newCode).not.toBe(booking.ticketCode);
    expect(await codeOf(client(), key, booking.id)).toBe(newCode);

    expect(await shown(key, source.slug)).toEqual({ registrationCount: 0, heldCount: 0, sold: [0] });
    expect(await shown(key, target.slug)).toEqual({ registrationCount: 3, heldCount: 0, sold: [0, 3] });
    for (const event of [source, target]) expectConsistent(await storedCounts(ctx.app.orm, event.id));

    // The old code, at either gate: TICKET_TRANSFERRED (when: the exchange's time); the new one is the target's.
    const [{ at }] = await sql<{ at: Date }>(`select superseded_at as at from superseded_ticket_codes where booking_id = ? and reason = 'EXCHANGE'`, [booking.id]);
    for (const gate of [source.slug, target.slug]) {
      expect(refusal(await scan(client(), door, key, booking.ticketCode, gate))).toEqual({ status: 409, code: 'TICKET_TRANSFERRED', details: { transferredAt: new Date(at).toISOString() } });
    }
    expect(refusal(await scan(client(), door, key, newCode, source.slug))).toMatchObject({ status: 409, code: 'WRONG_EVENT', details: { eventSlug: target.slug } });
    expect((await scan(client(), door, key, newCode, target.slug)).booking).toMatchObject({ id: booking.id, eventSlug: target.slug, checkedInAt: expect.any(String) });

    const [entry] = await storedEntries(ctx.app.orm, organization.id, 'booking.exchanged');
    expect(entry).toMatchObject({ action: 'booking.exchanged', target_id: booking.id, actor_kind: 'API_KEY' });
    expect(entry.summary).toEqual({
      from: { eventId: source.id, eventSlug: source.slug, ticketTypeId: source.ticketTypes[0].id },
      to: { eventId: target.id, eventSlug: target.slug, ticketTypeId: seated },
      quantity: 3,
    });
    const listed = await client().graphql(key, AUDIT_LOG, { action: 'booking.exchanged' });
    expect(listed.body.data.auditLog.entries.map((one: { targetId: string }) => one.targetId)).toEqual([booking.id]);

    const mine = (one: { path: string; json: { type: string } }) => one.path.endsWith(organization.id) && one.json.type === 'booking.exchanged';
    const [message] = (await receiver.waitFor((all) => all.some(mine))).filter(mine);
    expect(message.json.data).toEqual({
      id: booking.id,
      eventId: target.id,
      eventSlug: target.slug,
      ticketTypeId: seated,
      quantity: 3,
      attendeeEmail: 'ada@example.com',
      attendeeName: 'Ada Lovelace',
      status: 'CONFIRMED',
      createdAt: expect.any(String),
      cancelledAt: null,
      expiresAt: null,
      confirmedAt: null,
      checkedInAt: null,
      from: { eventId: source.id, eventSlug: source.slug },
      to: { eventId: target.id, eventSlug: target.slug },
    });
    for (const code of [newCode, booking.ticketCode]) {
      expect(message.body).not.toContain(code);
      expect(JSON.stringify(entry)).not.toContain(code);
    }
  });

  test('refusals of the booking: BOOKING_NOT_CONFIRMED (held, cancelled), BOOKING_CHECKED_IN, TRANSFER_LOCKED (the source event\'s lock), BOOKING_NOT_FOUND (another organization\'s); nothing changes', async () => {
    const { key } = await createTenant(ctx.app.orm);
    const other = await createTenant(ctx.app.orm);
    await client().graphql(key, 'mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { transferLockMinutes } }', { input: { transferLockMinutes: 60 } });
    const start = new Date(Date.now() + 59 * MINUTE);
    start.setUTCMilliseconds(0);
    const soon = await createPublishedEvent(client(), key, { startDate: start.toISOString(), endDate: new Date(start.getTime() + 3600_000).toISOString() });
    const event = await createPublishedEvent(client(), key);
    const target = await createPublishedEvent(client(), key);
    const held = await book(key, event.slug, { hold: true });
    const cancelled = await book(key, event.slug);
    await client().graphql(key, CANCEL_BOOKING, { id: cancelled.id });
    const checkedIn = await book(key, event.slug);
    const scanned = await scan(client(), 'rest', key, checkedIn.ticketCode, event.slug);
    const locked = await book(key, soon.slug);
    const to = { eventSlug: target.slug };

    expect(refusal(await exchange(client(), door, key, held.id, to))).toEqual({ status: 409, code: 'BOOKING_NOT_CONFIRMED', details: { status: 'HELD' } });
    expect(refusal(await exchange(client(), door, key, cancelled.id, to))).toEqual({ status: 409, code: 'BOOKING_NOT_CONFIRMED', details: { status: 'CANCELLED' } });
    expect(refusal(await exchange(client(), door, key, checkedIn.id, to))).toEqual({ status: 409, code: 'BOOKING_CHECKED_IN', details: { checkedInAt: scanned.booking!.checkedInAt } });
    expect(refusal(await exchange(client(), door, key, locked.id, to))).toEqual({
      status: 409,
      code: 'TRANSFER_LOCKED',
      details: { lockedAt: new Date(start.getTime() - 60 * MINUTE).toISOString() },
    });
    // Another organization's booking, to that organization's own event: not found.
    const theirs = await createPublishedEvent(client(), other.key);
    expect(refusal(await exchange(client(), door, other.key, checkedIn.id, { eventSlug: theirs.slug }))).toEqual({ status: 404, code: 'BOOKING_NOT_FOUND', details: { id: checkedIn.id } });
    expect(refusal(await exchange(client(), door, key, 'bk_doesnotexist0000000', to))).toMatchObject({ status: 404, code: 'BOOKING_NOT_FOUND' });

    const rows = await sql<{ event_id: string }>('select event_id from bookings where id in (?, ?, ?, ?)', [held.id, cancelled.id, checkedIn.id, locked.id]);
    expect(new Set(rows.map((row) => row.event_id))).toEqual(new Set([event.id, soon.id]));
    expect(await sql('select * from superseded_ticket_codes where booking_id in (?, ?)', [checkedIn.id, locked.id])).toEqual([]);
    expect(await shown(key, target.slug)).toEqual({ registrationCount: 0, heldCount: 0, sold: [] });
  });

  test('refusals of the target: EVENT_NOT_FOUND (unknown, another organization\'s), VALIDATION_ERROR (its own event, a ticket type missing, malformed input), TICKET_TYPE_NOT_FOUND, EVENT_NOT_PUBLISHED; FORBIDDEN without bookings:write; nothing changes', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const other = await createTenant(ctx.app.orm);
    const { source, target } = await twoEvents(key);
    const theirs = await createPublishedEvent(client(), other.key);
    const draft = (await client().rest('POST', '/v1/events', key, eventInput())).body as CreatedEvent;
    const cancelledEvent = await createPublishedEvent(client(), key);
    expect((await client().rest('PUT', `/v1/events/${cancelledEvent.slug}`, key, { status: 'CANCELLED' })).status).toBe(200);
    const booking = await book(key, source.slug, { quantity: 2, ticketTypeId: source.ticketTypes[0].id });
    const errorsOf = (outcome: { error?: { details?: unknown } }) => (outcome.error?.details as { errors: Array<{ field: string }> }).errors.map((error) => error.field).sort();

    expect(refusal(await exchange(client(), door, key, booking.id, { eventSlug: 'no-such-event' }))).toEqual({ status: 404, code: 'EVENT_NOT_FOUND', details: { slug: 'no-such-event' } });
    expect(refusal(await exchange(client(), door, key, booking.id, { eventSlug: theirs.slug }))).toEqual({ status: 404, code: 'EVENT_NOT_FOUND', details: { slug: theirs.slug } });
    // An exchange moves a booking to another event: its own event (another ticket type of it included) is refused.
    for (const input of [{ eventSlug: source.slug, ticketTypeId: source.ticketTypes[0].id }, { eventSlug: source.slug }]) {
      const same = await exchange(client(), door, key, booking.id, input);
      expect([same.status, same.error?.code, errorsOf(same)]).toEqual([400, 'VALIDATION_ERROR', ['eventSlug']]);
    }
    const untyped = await exchange(client(), door, key, booking.id, { eventSlug: target.slug });
    expect([untyped.status, untyped.error?.code, errorsOf(untyped)]).toEqual([400, 'VALIDATION_ERROR', ['ticketTypeId']]);
    const malformed = await exchange(client(), door, key, booking.id, { eventSlug: 'Not A Slug!', ticketTypeId: 'nope' });
    expect([malformed.status, malformed.error?.code, errorsOf(malformed)]).toEqual([400, 'VALIDATION_ERROR', ['eventSlug', 'ticketTypeId']]);
    expect(refusal(await exchange(client(), door, key, 'not-a-booking-id', { eventSlug: target.slug }))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    // A ticket type of another event (the source's), and one that does not exist.
    for (const ticketTypeId of [source.ticketTypes[0].id, 'tt_doesnotexist0000000']) {
      expect(refusal(await exchange(client(), door, key, booking.id, { eventSlug: target.slug, ticketTypeId }))).toEqual({ status: 404, code: 'TICKET_TYPE_NOT_FOUND', details: { id: ticketTypeId } });
    }
    expect(refusal(await exchange(client(), door, key, booking.id, { eventSlug: draft.slug }))).toEqual({ status: 409, code: 'EVENT_NOT_PUBLISHED', details: { slug: draft.slug, status: 'DRAFT' } });
    expect(refusal(await exchange(client(), door, key, booking.id, { eventSlug: cancelledEvent.slug }))).toEqual({
      status: 409,
      code: 'EVENT_NOT_PUBLISHED',
      details: { slug: cancelledEvent.slug, status: 'CANCELLED' },
    });
    const reader = (await createApiKey(ctx.app.orm, organization.id, { permissions: ['bookings:read'] })).key;
    expect(refusal(await exchange(client(), door, reader, booking.id, { eventSlug: target.slug, ticketTypeId: target.ticketTypes[0].id }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });

    expect(await codeOf(client(), key, booking.id)).toBe(booking.ticketCode);
    expect(await shown(key, source.slug)).toEqual({ registrationCount: 2, heldCount: 0, sold: [2] });
    expect(await shown(key, target.slug)).toEqual({ registrationCount: 0, heldCount: 0, sold: [0, 0] });
    expect(await storedEntries(ctx.app.orm, organization.id, 'booking.exchanged')).toEqual([]);
  });

  test('a full target: SOLD_OUT with the details createBooking gives there, nothing changed on either event (counts, code, audit, webhook)', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    await client().graphql(key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${organization.id}`, eventTypes: ['booking.exchanged'] } });
    const { source, target } = await twoEvents(key, { capacity: 6 });
    const standing = target.ticketTypes[0].id;
    const booking = await book(key, source.slug, { quantity: 3, ticketTypeId: source.ticketTypes[0].id });
    await book(key, target.slug, { quantity: 3, ticketTypeId: standing });
    await book(key, target.slug, { quantity: 1, ticketTypeId: target.ticketTypes[1].id });
    const before = [await shown(key, source.slug), await shown(key, target.slug)];

    // Standing has 2 left, the event 2: the tightest limit is named, as a booking of 3 there is told.
    const direct = await client().graphql(key, CREATE_WITH_CODE, { input: bookingInput(target.slug, { quantity: 3, ticketTypeId: standing }) });
    const refused = await exchange(client(), door, key, booking.id, { eventSlug: target.slug, ticketTypeId: standing });
    expect(refusal(refused)).toEqual({ status: 409, code: 'SOLD_OUT', details: direct.body.errors[0].extensions.details });
    expect(refused.error?.details).toMatchObject({ available: 2, requested: 3 });

    expect([await shown(key, source.slug), await shown(key, target.slug)]).toEqual(before);
    for (const event of [source, target]) expectConsistent(await storedCounts(ctx.app.orm, event.id));
    expect(await codeOf(client(), key, booking.id)).toBe(booking.ticketCode);
    expect(await sql('select * from superseded_ticket_codes where booking_id = ?', [booking.id])).toEqual([]);
    expect(await storedEntries(ctx.app.orm, organization.id, 'booking.exchanged')).toEqual([]);
    expect(await sql(`select id from webhook_messages where organization_id = ? and type = 'booking.exchanged'`, [organization.id])).toEqual([]);
    expect((await scan(client(), door, key, booking.ticketCode, source.slug)).status).toBe(200);
  });

  test('Idempotency-Key: a retry replays the first answer (the same new code, Idempotent-Replayed), the seats moved once, one code superseded, one audit entry; the key with another body 422', async () => {
    const { key, organization } = await createTenant(ctx.app.orm);
    const { source, target } = await twoEvents(key);
    const booking = await book(key, source.slug, { quantity: 2, ticketTypeId: source.ticketTypes[0].id });
    const headers = { 'idempotency-key': randomUUID() };
    const input = { eventSlug: target.slug, ticketTypeId: target.ticketTypes[0].id };
    const first = await exchange(client(), door, key, booking.id, input, headers);
    const retried = await exchange(client(), door, key, booking.id, input, headers);
    expect(first.status).toBe(200);
    expect([retried.response.status, retried.response.text, retried.response.headers['idempotent-replayed']]).toEqual([200, first.response.text, 'true']);
    expect(await sql('select booking_id from superseded_ticket_codes where booking_id = ?', [booking.id])).toHaveLength(1);
    expect(await storedEntries(ctx.app.orm, organization.id, 'booking.exchanged')).toHaveLength(1);
    expect(await shown(key, target.slug)).toEqual({ registrationCount: 2, heldCount: 0, sold: [2, 0] });
    const reused = await exchange(client(), door, key, booking.id, { ...input, ticketTypeId: target.ticketTypes[1].id }, headers);
    expect(reused.status).toBe(422);
    expect(await codeOf(client(), key, booking.id)).toBe(first.booking!.ticketCode);
    // A refusal decided by the rules is stored and replayed too (D17): the booking's own event now.
    const other = { 'idempotency-key': randomUUID() };
    const refused = await exchange(client(), door, key, booking.id, input, other);
    expect([refused.status, refused.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    const again = await exchange(client(), door, key, booking.id, input, other);
    expect([again.response.status, again.response.text, again.response.headers['idempotent-replayed']]).toEqual([refused.response.status, refused.response.text, 'true']);
  });
});

test('a booking exchanged there and back: both earlier codes answer TICKET_TRANSFERRED, only the last scans; counts as they were', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const first = await createPublishedEvent(client(), key, { capacity: 5 });
  const second = await createPublishedEvent(client(), key, { capacity: 5 });
  const booking = await book(key, first.slug, { quantity: 2 });
  const there = (await exchange(client(), 'graphql', key, booking.id, { eventSlug: second.slug })).booking!;
  const back = (await exchange(client(), 'rest', key, booking.id, { eventSlug: first.slug })).booking!;
  expect(back).toMatchObject({ id: booking.id, eventSlug: first.slug, ticketTypeId: null });
  for (const code of [booking.ticketCode, there.ticketCode]) expect(refusal(await scan(client(), 'rest', key, code, first.slug)).code).toBe('TICKET_TRANSFERRED');
  expect((await scan(client(), 'rest', key, back.ticketCode, first.slug)).status).toBe(200);
  expect([(await shown(key, first.slug)).registrationCount, (await shown(key, second.slug)).registrationCount]).toEqual([2, 0]);
});
