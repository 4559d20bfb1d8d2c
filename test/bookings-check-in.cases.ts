import { randomBytes } from 'node:crypto';
import { findById } from '../src/modules/booking/booking.repository';
import { checkInBooking } from '../src/modules/booking/commands/check-in-booking';
import { presentBooking } from '../src/modules/booking/booking.presenter';
import { bookingInput, CANCEL_BOOKING, CREATE_BOOKING, createPublishedEvent, ticket } from './helpers/bookings';
import { createMemberWithPassword, sessionGraphql, signIn } from './helpers/dashboard';
import { createApiKey, createTenant } from './helpers/factories';
import { insertEvents } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';
import { CREATE_ENDPOINT, WEBHOOK_TEST_ENV, WebhookReceiver } from './helpers/webhook-receiver';
import { systemScope } from '../src/platform/db/unit-of-work-scope';

/*
 * D22, check-in at the door, through GraphQL (the REST routes come with D23): every transition and
 * refusal, tenancy, permissions, many gates scanning one booking at once (exactly one success), the
 * webhook message written by the same statement (and rolled back with it), Event.checkedInCount.
 * Two server processes scanning one booking: test/bookings-processes.test.ts.
 */

const ctx = useTestApp(WEBHOOK_TEST_ENV);
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await new WebhookReceiver().listen();
  ctx.beforeClose(() => receiver.close());
});

const FIELDS = 'id status checkedInAt quantity eventSlug';
const CHECK_IN = `mutation($id: ID!) { checkInBooking(id: $id) { ${FIELDS} } }`;
const UNDO = `mutation($id: ID!) { undoCheckIn(id: $id) { ${FIELDS} } }`;
const EVENT_COUNT = 'query($slug: String!) { event(slug: $slug) { checkedInCount } }';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const sql = () => ctx.app.orm.em.fork().getConnection();
const checkIn = (key: string, id: string) => ctx.app.client.graphql(key, CHECK_IN, { id });
const undo = (key: string, id: string) => ctx.app.client.graphql(key, UNDO, { id });
const errorOf = (response: { body: any }) => response.body.errors?.[0]?.extensions;
const checkedInCount = async (key: string, slug: string): Promise<number> => (await ctx.app.client.graphql(key, EVENT_COUNT, { slug })).body.data.event.checkedInCount;

async function book(key: string, slug: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; quantity: number }> {
  const response = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(slug, overrides) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.createBooking;
}

async function storedCheckIn(id: string): Promise<string | null> {
  const [row] = await sql().execute<Array<{ checked_in_at: Date | null }>>('select checked_in_at from bookings where id = ?', [id]);
  return row.checked_in_at === null ? null : new Date(row.checked_in_at).toISOString();
}

async function messagesOf(organizationId: string, type: string): Promise<Array<{ data: Record<string, unknown> }>> {
  const rows = await sql().execute<Array<{ body: string }>>('select body from webhook_messages where organization_id = ? and type = ? order by created_at', [organizationId, type]);
  return rows.map((row) => JSON.parse(row.body));
}

/** A booking row in a state only holds make (the hold mutation is not ours to call here): HELD or EXPIRED. */
async function insertBooking(organizationId: string, eventId: string, status: 'HELD' | 'EXPIRED', expiresAt: Date): Promise<string> {
  const id = `bk_${randomBytes(10).toString('hex')}`;
  await sql().execute(
    `insert into bookings (id, organization_id, event_id, quantity, attendee_email, attendee_name, status, created_at, expires_at)
     values (?, ?, ?, 1, 'held@example.com', 'Held Person', ?, now(), ?)`,
    [id, organizationId, eventId, status, expiresAt],
  );
  return id;
}

async function tenantWithEndpoint() {
  const tenant = await createTenant(ctx.app.orm);
  const created = await ctx.app.client.graphql(tenant.key, CREATE_ENDPOINT, { input: { url: `${receiver.url}?org=${tenant.organization.id}` } });
  expect(created.body.errors).toBeUndefined();
  return tenant;
}

test('check in → scanned again 409 ALREADY_CHECKED_IN → undo → undo again 409 NOT_CHECKED_IN → check in again; checkedInCount follows', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 10, ticketTypes: [ticket({ quantity: 10 })] });
  const booking = await book(key, event.slug, { quantity: 3 });
  const other = await book(key, event.slug);
  expect(await checkedInCount(key, event.slug)).toBe(0);

  const before = Date.now();
  const first = await checkIn(key, booking.id);
  expect(first.status).toBe(200);
  const checkedIn = first.body.data.checkInBooking;
  expect(checkedIn).toEqual({ id: booking.id, status: 'CONFIRMED', checkedInAt: expect.stringMatching(ISO), quantity: 3, eventSlug: event.slug });
  expect(Date.parse(checkedIn.checkedInAt)).toBeGreaterThanOrEqual(before - 1000);
  expect(await storedCheckIn(booking.id)).toBe(checkedIn.checkedInAt);
  // Bookings checked in, not seats: a booking of 3 counts once.
  expect(await checkedInCount(key, event.slug)).toBe(1);
  const read = await ctx.app.client.graphql(key, 'query($id: ID!) { booking(id: $id) { checkedInAt status } }', { id: booking.id });
  expect(read.body.data.booking).toEqual({ checkedInAt: checkedIn.checkedInAt, status: 'CONFIRMED' });

  const again = await checkIn(key, booking.id);
  expect(again.body.data).toBeNull();
  expect(errorOf(again)).toEqual({ code: 'ALREADY_CHECKED_IN', details: { checkedInAt: checkedIn.checkedInAt } });
  expect(again.body.errors[0].message).toContain(checkedIn.checkedInAt);
  expect(await storedCheckIn(booking.id)).toBe(checkedIn.checkedInAt);

  expect((await checkIn(key, other.id)).body.data.checkInBooking.checkedInAt).toMatch(ISO);
  expect(await checkedInCount(key, event.slug)).toBe(2);

  const undone = await undo(key, booking.id);
  expect(undone.body.data.undoCheckIn).toEqual({ id: booking.id, status: 'CONFIRMED', checkedInAt: null, quantity: 3, eventSlug: event.slug });
  expect(await storedCheckIn(booking.id)).toBeNull();
  expect(await checkedInCount(key, event.slug)).toBe(1);
  const undoneAgain = await undo(key, booking.id);
  expect(undoneAgain.body.data).toBeNull();
  expect(errorOf(undoneAgain)).toEqual({ code: 'NOT_CHECKED_IN' });

  const reCheckedIn = (await checkIn(key, booking.id)).body.data.checkInBooking;
  expect(Date.parse(reCheckedIn.checkedInAt)).toBeGreaterThanOrEqual(Date.parse(checkedIn.checkedInAt));
  expect(await checkedInCount(key, event.slug)).toBe(2);
  // Seats are not touched by a check-in.
  const counts = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(counts.body.registrationCount).toBe(4);
});

test('only CONFIRMED: CANCELLED, HELD, HELD past its expiresAt (EXPIRED) and EXPIRED answer 409 BOOKING_NOT_CONFIRMED with the status, for both mutations', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const cancelled = await book(key, event.slug);
  expect((await ctx.app.client.graphql(key, CANCEL_BOOKING, { id: cancelled.id })).body.data.cancelBooking.status).toBe('CANCELLED');
  const held = await insertBooking(organization.id, event.id, 'HELD', new Date(Date.now() + 10 * 60_000));
  const lapsed = await insertBooking(organization.id, event.id, 'HELD', new Date(Date.now() - 1_000));
  const expired = await insertBooking(organization.id, event.id, 'EXPIRED', new Date(Date.now() - 60_000));

  for (const [id, status] of [
    [cancelled.id, 'CANCELLED'],
    [held, 'HELD'],
    [lapsed, 'EXPIRED'],
    [expired, 'EXPIRED'],
  ] as const) {
    for (const mutation of [checkIn, undo]) {
      const refused = await mutation(key, id);
      expect(refused.body.data).toBeNull();
      expect(errorOf(refused)).toEqual({ code: 'BOOKING_NOT_CONFIRMED', details: { status } });
    }
    expect(await storedCheckIn(id)).toBeNull();
  }
  expect(await checkedInCount(key, event.slug)).toBe(0);
});

test('a checked-in booking that is cancelled stops counting and can be neither scanned nor undone', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const booking = await book(key, event.slug);
  await checkIn(key, booking.id);
  expect(await checkedInCount(key, event.slug)).toBe(1);
  await ctx.app.client.graphql(key, CANCEL_BOOKING, { id: booking.id });
  expect(await checkedInCount(key, event.slug)).toBe(0);
  expect(errorOf(await checkIn(key, booking.id))).toEqual({ code: 'BOOKING_NOT_CONFIRMED', details: { status: 'CANCELLED' } });
  expect(errorOf(await undo(key, booking.id))).toEqual({ code: 'BOOKING_NOT_CONFIRMED', details: { status: 'CANCELLED' } });
});

test("tenancy: another organization's booking and an unknown id are 404 BOOKING_NOT_FOUND and stay untouched; a malformed id is a 400", async () => {
  const owner = await createTenant(ctx.app.orm);
  const stranger = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, owner.key);
  const booking = await book(owner.key, event.slug);
  for (const mutation of [checkIn, undo]) {
    const foreign = await mutation(stranger.key, booking.id);
    expect(errorOf(foreign)).toEqual({ code: 'BOOKING_NOT_FOUND', details: { id: booking.id } });
    const unknown = await mutation(stranger.key, 'bk_doesnotexist00000000');
    expect(errorOf(unknown)).toEqual({ code: 'BOOKING_NOT_FOUND', details: { id: 'bk_doesnotexist00000000' } });
    const malformed = await mutation(owner.key, 'evt_123');
    expect(errorOf(malformed)).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [expect.objectContaining({ field: 'id' })] } });
  }
  expect(await storedCheckIn(booking.id)).toBeNull();
  // Once checked in by its owner, the stranger's undo still finds nothing.
  await checkIn(owner.key, booking.id);
  expect(errorOf(await undo(stranger.key, booking.id)).code).toBe('BOOKING_NOT_FOUND');
  expect(await storedCheckIn(booking.id)).not.toBeNull();
});

test('permissions: checkin:write is needed (403 FORBIDDEN without it, even with bookings:write); an ADMIN session holds it, a MEMBER session does not', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const booking = await book(key, event.slug);
  const { key: bookingsOnly } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['bookings:read', 'bookings:write'] });
  for (const mutation of [checkIn, undo]) {
    const forbidden = await mutation(bookingsOnly, booking.id);
    expect(forbidden.status).toBe(403);
    expect(errorOf(forbidden)).toEqual({
      code: 'FORBIDDEN',
      details: { requiredPermission: 'checkin:write', currentPermissions: ['bookings:read', 'bookings:write'] },
    });
  }
  expect(await storedCheckIn(booking.id)).toBeNull();

  // A scanner's key needs nothing else.
  const { key: scanner } = await createApiKey(ctx.app.orm, organization.id, { permissions: ['checkin:write'] });
  expect((await ctx.app.client.graphql(scanner, `mutation($id: ID!) { checkInBooking(id: $id) { id checkedInAt } }`, { id: booking.id })).body.data.checkInBooking.checkedInAt).toMatch(ISO);
  expect((await ctx.app.client.graphql(scanner, `mutation($id: ID!) { undoCheckIn(id: $id) { id checkedInAt } }`, { id: booking.id })).body.data.undoCheckIn.checkedInAt).toBeNull();

  const member = await signIn(ctx.app.client, (await createMemberWithPassword(ctx.app.orm, organization.id, 'member')).email);
  const refused = await sessionGraphql(ctx.app.client, member, CHECK_IN, { id: booking.id });
  expect(errorOf(refused)).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: 'checkin:write' } });
  const admin = await signIn(ctx.app.client, (await createMemberWithPassword(ctx.app.orm, organization.id, 'admin')).email);
  const scanned = await sessionGraphql(ctx.app.client, admin, CHECK_IN, { id: booking.id });
  expect(scanned.body.data.checkInBooking.checkedInAt).toMatch(ISO);
});

test('30 gates scan one booking at once: exactly one success, 29 ALREADY_CHECKED_IN with the winning time, one webhook message', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const event = await createPublishedEvent(ctx.app.client, key);
  const booking = await book(key, event.slug);
  const answers = await Promise.all(Array.from({ length: 30 }, () => checkIn(key, booking.id)));
  const won = answers.filter((answer) => answer.body.data?.checkInBooking);
  expect(won).toHaveLength(1);
  const checkedInAt = won[0].body.data.checkInBooking.checkedInAt as string;
  const refused = answers.filter((answer) => !answer.body.data?.checkInBooking).map(errorOf);
  expect(refused).toEqual(Array(29).fill({ code: 'ALREADY_CHECKED_IN', details: { checkedInAt } }));
  expect(await storedCheckIn(booking.id)).toBe(checkedInAt);
  expect(await messagesOf(organization.id, 'booking.checked_in')).toHaveLength(1);
  expect(await checkedInCount(key, event.slug)).toBe(1);

  // Scans and undos racing: every answer is a success or the refusal of the state it met, never a 500.
  const mixed = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? checkIn(key, booking.id) : undo(key, booking.id))));
  for (const answer of mixed) {
    const data = answer.body.data;
    if (data) expect(Object.keys(data)).toHaveLength(1);
    else expect(['ALREADY_CHECKED_IN', 'NOT_CHECKED_IN']).toContain(errorOf(answer).code);
  }
  const checkIns = mixed.filter((answer) => answer.body.data?.checkInBooking).length;
  const undos = mixed.filter((answer) => answer.body.data?.undoCheckIn).length;
  expect(Math.abs(checkIns - undos)).toBeLessThanOrEqual(1);
  expect((await storedCheckIn(booking.id)) !== null).toBe(checkIns - undos === 0);
  expect(await messagesOf(organization.id, 'booking.checked_in')).toHaveLength(1 + checkIns);
  expect(await messagesOf(organization.id, 'booking.check_in_undone')).toHaveLength(undos);
});

test('30 scans of one booking on 30 connections of the pool (the command, without HTTP): exactly one success', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const event = await createPublishedEvent(ctx.app.client, key);
  const booking = await book(key, event.slug);
  // Each on an entity manager of its own: its statement on a connection of the ORM's pool, not the
  // server's pipelined statement pool, so that they really run side by side in PostgreSQL.
  const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => checkInBooking(systemScope(ctx.app.orm.em.fork()), organization.id, booking.id)));
  const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
  expect(won).toHaveLength(1);
  const checkedInAt = (won[0] as PromiseFulfilledResult<{ checkedInAt: Date }>).value.checkedInAt.toISOString();
  const refused = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => outcome.reason);
  expect(refused.map((error) => ({ code: error.code, details: error.details }))).toEqual(Array(29).fill({ code: 'ALREADY_CHECKED_IN', details: { checkedInAt } }));
  expect(await storedCheckIn(booking.id)).toBe(checkedInAt);
  expect(await messagesOf(organization.id, 'booking.checked_in')).toHaveLength(1);
});

test('webhooks: booking.checked_in and booking.check_in_undone carry the booking as presented; a refusal writes none', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const event = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket()] });
  const booking = await book(key, event.slug, { ticketTypeId: event.ticketTypes[0].id, quantity: 2 });
  const checkedInAt = (await checkIn(key, booking.id)).body.data.checkInBooking.checkedInAt;
  await checkIn(key, booking.id);
  const [checkedIn, ...more] = await messagesOf(organization.id, 'booking.checked_in');
  expect(more).toEqual([]);
  const stored = await findById(ctx.app.orm.em.fork(), organization.id, booking.id);
  expect(checkedIn.data).toEqual(presentBooking(stored, { id: event.id, slug: event.slug }));
  expect(checkedIn.data).toMatchObject({ id: booking.id, eventSlug: event.slug, status: 'CONFIRMED', quantity: 2, checkedInAt, ticketTypeId: event.ticketTypes[0].id });

  await undo(key, booking.id);
  await undo(key, booking.id);
  const [undone, ...moreUndone] = await messagesOf(organization.id, 'booking.check_in_undone');
  expect(moreUndone).toEqual([]);
  expect(undone.data).toEqual({ ...checkedIn.data, checkedInAt: null });
  // The payload of booking.created names the new field too (null).
  expect((await messagesOf(organization.id, 'booking.created'))[0].data).toMatchObject({ id: booking.id, checkedInAt: null });

  // Delivered, signed, to the endpoint subscribed to everything.
  const mine = (message: { path: string; json: { type: string } }) => message.json.type === 'booking.checked_in' && message.path.includes(organization.id);
  const received = await receiver.waitFor((messages) => messages.some(mine));
  expect(received.find(mine)!.json.data).toEqual(checkedIn.data);
});

test('the check-in and its webhook message are one statement: a message that cannot be written leaves the booking unchecked', async () => {
  const { key, organization } = await tenantWithEndpoint();
  const event = await createPublishedEvent(ctx.app.client, key);
  const booking = await book(key, event.slug);
  const trigger = `fail_checkin_${organization.id.toLowerCase()}`;
  await sql().execute(`create function ${trigger}() returns trigger language plpgsql as $$
    begin
      if new.organization_id = '${organization.id}' and new.type like 'booking.check%' then raise exception 'test: the outbox refuses this message'; end if;
      return new;
    end $$`);
  await sql().execute(`create trigger ${trigger} before insert on webhook_messages for each row execute function ${trigger}()`);
  try {
    const failed = await checkIn(key, booking.id);
    expect(errorOf(failed).code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(failed.body)).not.toContain('outbox refuses');
    expect(await storedCheckIn(booking.id)).toBeNull();
  } finally {
    await sql().execute(`drop trigger ${trigger} on webhook_messages`);
    await sql().execute(`drop function ${trigger}()`);
  }
  expect(await messagesOf(organization.id, 'booking.checked_in')).toHaveLength(0);
  expect((await checkIn(key, booking.id)).body.data.checkInBooking.checkedInAt).toMatch(ISO);
  expect(await messagesOf(organization.id, 'booking.checked_in')).toHaveLength(1);
});

test('Idempotency-Key: a retried scan gets the first answer again (Idempotent-Replayed), not ALREADY_CHECKED_IN', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const booking = await book(key, event.slug);
  const send = () =>
    ctx.app.client.request('POST', '/graphql', {
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': `scan-${booking.id}` },
      json: { query: CHECK_IN, variables: { id: booking.id } },
    });
  const first = await send();
  expect(first.body.data.checkInBooking.checkedInAt).toMatch(ISO);
  const replay = await send();
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body).toEqual(first.body);
  expect(errorOf(await checkIn(key, booking.id)).code).toBe('ALREADY_CHECKED_IN');
});

// Changes legitimately only if D20's counts stop being read in the page's own statement; a second, batched count is the regression.
test('performance guard: Event.checkedInCount on a list of events: read in the statement of the page (D20: both doors show it), each its own count', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const events = await insertEvents(ctx.app.orm, organization.id, 12);
  for (const [index, event] of events.entries()) {
    for (let n = 0; n < index % 4; n += 1) {
      const id = `bk_${randomBytes(10).toString('hex')}`;
      await sql().execute(
        `insert into bookings (id, organization_id, event_id, quantity, attendee_email, attendee_name, status, created_at, checked_in_at)
         values (?, ?, ?, 2, 'a@example.com', 'A', ?, now(), now())`,
        [id, organization.id, event.id, n === 2 ? 'CANCELLED' : 'CONFIRMED'],
      );
    }
  }
  const query = 'query($limit: Int!) { events(limit: $limit) { events { slug checkedInCount } } }';
  const statementsOf = async (limit: number) => {
    await ctx.app.client.graphql(key, '{ events(limit: 1) { total } }');
    ctx.app.sql.reset();
    const response = await ctx.app.client.graphql(key, query, { limit });
    // Background work of the app (the hold-expiry sweep reads every booking column, checked_in_at
    // included) may run in the same moment: the page's statement and the batched count's, by their text.
    const statements = ctx.app.sql.statements;
    const batched = statements.filter((statement) => /b\.checked_in_at is not null .* group by b\.event_id/s.test(statement)).length;
    return { response, count: { page: statements.filter((statement) => /"checkedInCount"/.test(statement)).length, batched } };
  };
  const small = await statementsOf(3);
  const large = await statementsOf(12);
  expect(small.count).toEqual({ page: 1, batched: 0 });
  expect(large.count).toEqual({ page: 1, batched: 0 });
  const bySlug = new Map(events.map((event, index) => [event.slug, Math.min(index % 4, 2)]));
  for (const event of large.response.body.data.events.events as Array<{ slug: string; checkedInCount: number }>) {
    expect(event.checkedInCount).toBe(bySlug.get(event.slug));
  }
});
