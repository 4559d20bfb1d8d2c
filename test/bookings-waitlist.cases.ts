import type { HttpResponse, HttpsClient } from './helpers/https-client';
import { bookingInput, createPublishedEvent, expectConsistent, storedCounts, ticket, UPDATE_TICKET_TYPE } from './helpers/bookings';
import { createApiKey, createTenant, eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// D21 the waiting list through GraphQL: join only when the seats are not free; freed seats (a
// cancellation, an expired hold, a raised capacity or quantity, an offer given back) offered in join
// order as HELD bookings in the same transaction, an entry too large passed by smaller ones; offer
// confirmed → CONVERTED, lapsed or cancelled → EXPIRED and passed on; leave; the list with positions.
// Expiry is tested by moving an expiresAt into the past in the database and letting the sweep (every
// 500 ms here) run: the same code path as waiting for it.
jest.setTimeout(90_000);

const ENTRY = 'id eventId eventSlug ticketTypeId quantity attendeeEmail attendeeName status position createdAt offeredBookingId offeredAt offerExpiresAt';
const JOIN = `mutation($input: JoinWaitlistInput!) { joinWaitlist(input: $input) { ${ENTRY} } }`;
const LEAVE = `mutation($id: ID!) { leaveWaitlist(id: $id) { ${ENTRY} } }`;
const LIST = `query($eventSlug: String!, $page: Int, $limit: Int, $status: WaitlistStatus) {
  waitlist(eventSlug: $eventSlug, page: $page, limit: $limit, status: $status) { total page limit entries { ${ENTRY} } }
}`;
const BOOKING = 'id status quantity expiresAt confirmedAt cancelledAt attendeeName ticketType { id }';
const CREATE = `mutation($input: CreateBookingInput!) { createBooking(input: $input) { ${BOOKING} } }`;
const CONFIRM = `mutation($id: ID!) { confirmBooking(id: $id) { ${BOOKING} } }`;
const CANCEL = `mutation($id: ID!) { cancelBooking(id: $id) { ${BOOKING} } }`;
const READ_BOOKING = `query($id: ID!) { booking(id: $id) { ${BOOKING} } }`;
const UPDATE_EVENT = `mutation($slug: String!, $input: UpdateEventInput!) { updateEvent(slug: $slug, input: $input) { slug capacity } }`;

const ctx = useTestApp({ HOLD_EXPIRY_INTERVAL_MS: '500' }, { tenant: true, secondInstance: { HOLD_EXPIRY_INTERVAL_MS: '500' } });
beforeAll(async () => {
  // Every waiting-list message of this organization is written (an endpoint wants it).
  const endpoint = await ctx.app.client.graphql(
    ctx.key,
    `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`,
    { input: { url: 'https://hooks.example.com/waitlist', eventTypes: ['waitlist.offered', 'booking.held', 'booking.expired'] } },
  );
  expect(endpoint.body.errors).toBeUndefined();
});

interface Entry {
  id: string;
  status: string;
  position: number | null;
  quantity: number;
  offeredBookingId: string | null;
  offeredAt: string | null;
  offerExpiresAt: string | null;
  createdAt: string;
  ticketTypeId: string | null;
}

const sql = <T>(text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, values);
const codeOf = (response: HttpResponse) => response.body.errors?.[0]?.extensions?.code;
const detailsOf = (response: HttpResponse) => response.body.errors?.[0]?.extensions?.details;

async function join(slug: string, quantity: number, overrides: Record<string, unknown> = {}, client: HttpsClient = ctx.app.client): Promise<Entry> {
  const response = await client.graphql(ctx.key, JOIN, { input: bookingInput(slug, { quantity, attendeeName: `Waiter ${quantity}`, ...overrides }) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.joinWaitlist as Entry;
}
const joinRaw = (slug: string, overrides: Record<string, unknown> = {}, withKey = ctx.key) =>
  ctx.app.client.graphql(withKey, JOIN, { input: bookingInput(slug, overrides) });
async function book(slug: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; status: string; expiresAt: string | null }> {
  const response = await ctx.app.client.graphql(ctx.key, CREATE, { input: bookingInput(slug, overrides) });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.createBooking;
}
const list = async (slug: string, variables: Record<string, unknown> = {}) => (await ctx.app.client.graphql(ctx.key, LIST, { eventSlug: slug, ...variables })).body.data.waitlist;
const entries = async (slug: string): Promise<Entry[]> => (await list(slug, { limit: 100 })).entries;
const byId = async (slug: string) => new Map((await entries(slug)).map((entry) => [entry.id, entry]));
const readBooking = async (id: string) => (await ctx.app.client.graphql(ctx.key, READ_BOOKING, { id })).body.data.booking;
/** Ends a hold now, as time passing would. */
const lapse = (bookingId: string) => sql(`update bookings set expires_at = now() - interval '1 second' where id = ?`, [bookingId]);
const offeredMessages = async (entryId: string) =>
  (await sql<{ body: string }>(`select body from webhook_messages where organization_id = ? and type = 'waitlist.offered' order by created_at`, [ctx.organizationId]))
    .map((row) => JSON.parse(row.body).data)
    .filter((data: { id: string }) => data.id === entryId);

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A PUBLISHED event of `capacity` seats, sold out by confirmed bookings of the given sizes. */
async function soldOutEvent(capacity: number, sizes: number[], overrides: Record<string, unknown> = {}) {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity, ...overrides });
  const bookings = [];
  for (const quantity of sizes) bookings.push(await book(event.slug, { quantity }));
  return { event, bookings };
}

describe('joinWaitlist', () => {
  test('only when the seats are not free: SEATS_AVAILABLE with what is free, counting lapsed holds as free', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 4, ticketTypes: [ticket({ quantity: 2 })] });
    const ticketTypeId = event.ticketTypes[0].id;
    const free = await joinRaw(event.slug, { quantity: 4 });
    expect(codeOf(free)).toBe('SEATS_AVAILABLE');
    expect(detailsOf(free)).toEqual({ available: 4, requested: 4, limitedBy: 'capacity' });
    // The ticket type has 2: 3 of them wait, 2 do not.
    expect(detailsOf(await joinRaw(event.slug, { quantity: 2, ticketTypeId }))).toEqual({ available: 2, requested: 2, limitedBy: 'ticketType', ticketTypeId });
    expect((await join(event.slug, 3, { ticketTypeId })).status).toBe('WAITING');

    // Held seats are taken; once past their expiresAt they are free again, stored EXPIRED or not.
    const held = await book(event.slug, { quantity: 4, hold: true });
    expect((await join(event.slug, 1)).position).toBe(2);
    await sql(`update bookings set expires_at = now() - interval '1 second', status = 'HELD' where id = ?`, [held.id]);
    expect(codeOf(await joinRaw(event.slug, { quantity: 1 }))).toBe('SEATS_AVAILABLE');

    const unlimited = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: null });
    const refused = await joinRaw(unlimited.slug);
    expect(detailsOf(refused)).toEqual({ available: null, requested: 1, limitedBy: null });
  });

  test('the refusals of createBooking, in its order, and nothing stored', async () => {
    const draft = await ctx.app.client.rest('POST', '/v1/events', ctx.key, eventInput({ capacity: 1 }));
    const { event } = await soldOutEvent(1, [1]);
    const invalid = await joinRaw('Not A Slug', { quantity: 0, attendeeEmail: 'nope', attendeeName: '  ', ticketTypeId: 'bk_x' });
    expect(codeOf(invalid)).toBe('VALIDATION_ERROR');
    expect(detailsOf(invalid).errors.map((error: { field: string }) => error.field).sort()).toEqual(
      ['attendeeEmail', 'attendeeName', 'eventSlug', 'quantity', 'ticketTypeId'].sort(),
    );
    expect(codeOf(await joinRaw(event.slug, { quantity: 1001 }))).toBe('VALIDATION_ERROR');
    expect(codeOf(await joinRaw('no-such-event'))).toBe('EVENT_NOT_FOUND');
    expect(codeOf(await joinRaw(draft.body.slug))).toBe('EVENT_NOT_PUBLISHED');
    expect(detailsOf(await joinRaw(draft.body.slug))).toEqual({ slug: draft.body.slug, status: 'DRAFT' });
    expect(codeOf(await joinRaw(event.slug, { ticketTypeId: 'tt_doesnotexist00000000' }))).toBe('TICKET_TYPE_NOT_FOUND');
    const { key: otherKey } = await createTenant(ctx.app.orm);
    expect(codeOf(await joinRaw(event.slug, {}, otherKey))).toBe('EVENT_NOT_FOUND');
    const readOnly = (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['bookings:read', 'events:read'] })).key;
    const forbidden = await joinRaw(event.slug, {}, readOnly);
    expect(codeOf(forbidden)).toBe('FORBIDDEN');
    expect(detailsOf(forbidden).requiredPermission).toBe('bookings:write');
    expect((await list(event.slug)).total).toBe(0);
  });

  test('entries keep join order; the list pages them with positions among the WAITING ones', async () => {
    const { event } = await soldOutEvent(2, [2]);
    const joined = [];
    for (const quantity of [1, 2, 1, 3]) joined.push(await join(event.slug, quantity));
    expect(joined.map((entry) => [entry.status, entry.position])).toEqual([
      ['WAITING', 1],
      ['WAITING', 2],
      ['WAITING', 3],
      ['WAITING', 4],
    ]);
    expect(joined[0]).toMatchObject({ eventId: event.id, eventSlug: event.slug, quantity: 1, offeredBookingId: null, offeredAt: null, ticketTypeId: null });
    expect(joined[0].id).toMatch(/^wl_[A-Za-z0-9]{20}$/);
    const page = await list(event.slug, { page: 2, limit: 3 });
    expect(page).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(page.entries.map((entry: Entry) => entry.id)).toEqual([joined[3].id]);
    expect(page.entries[0].position).toBe(4);
    expect((await list(event.slug, { page: 3, limit: 3 })).entries).toEqual([]);
    expect((await list(event.slug, { status: 'OFFERED' })).total).toBe(0);
    const bad = await ctx.app.client.graphql(ctx.key, LIST, { eventSlug: event.slug, limit: 101 });
    expect(codeOf(bad)).toBe('VALIDATION_ERROR');
    const { key: otherKey } = await createTenant(ctx.app.orm);
    expect(codeOf(await ctx.app.client.graphql(otherKey, LIST, { eventSlug: event.slug }))).toBe('EVENT_NOT_FOUND');
    const writeOnly = (await createApiKey(ctx.app.orm, ctx.organizationId, { permissions: ['bookings:write'] })).key;
    expect(codeOf(await ctx.app.client.graphql(writeOnly, LIST, { eventSlug: event.slug }))).toBe('FORBIDDEN');
  });

  test('with an Idempotency-Key, a retried join answers the first entry again and joins once', async () => {
    const { event } = await soldOutEvent(1, [1]);
    const headers = { authorization: `Bearer ${ctx.key}`, 'idempotency-key': `waitlist-${event.slug}` };
    const send = () => ctx.app.client.request('POST', '/graphql', { headers, json: { query: JOIN, variables: { input: bookingInput(event.slug) } } });
    const first = await send();
    const again = await send();
    expect(first.body.data.joinWaitlist.status).toBe('WAITING');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await list(event.slug)).total).toBe(1);
  });
});

describe('offers', () => {
  test('a cancellation offers its seats in join order as HELD bookings; an entry too large keeps its place, smaller later ones pass it', async () => {
    const { event, bookings } = await soldOutEvent(5, [3, 2]);
    const [large, small, middle, last] = [await join(event.slug, 3), await join(event.slug, 1), await join(event.slug, 2), await join(event.slug, 1)];
    const cancelled = await ctx.app.client.graphql(ctx.key, CANCEL, { id: bookings[1].id });
    expect(cancelled.body.data.cancelBooking.status).toBe('CANCELLED');

    const after = await byId(event.slug);
    // 2 seats: the 3 cannot fit, the 1 can, then the 2 cannot (1 left), then the last 1 can.
    expect([large, small, middle, last].map((entry) => [after.get(entry.id)!.status, after.get(entry.id)!.position])).toEqual([
      ['WAITING', 1],
      ['OFFERED', null],
      ['WAITING', 2],
      ['OFFERED', null],
    ]);
    for (const entry of [small, last]) {
      const offered = after.get(entry.id)!;
      const booking = await readBooking(offered.offeredBookingId!);
      expect(booking).toMatchObject({ status: 'HELD', quantity: 1, attendeeName: 'Waiter 1', expiresAt: offered.offerExpiresAt });
      // The organization's waitlistOfferMinutes (default 60) after the offer.
      expect(new Date(offered.offerExpiresAt!).getTime() - new Date(offered.offeredAt!).getTime()).toBe(60 * 60_000);
      const [message, ...more] = await offeredMessages(entry.id);
      expect(more).toEqual([]);
      expect(message).toEqual({
        id: entry.id,
        eventId: event.id,
        eventSlug: event.slug,
        ticketTypeId: null,
        quantity: 1,
        attendeeEmail: 'ada@example.com',
        attendeeName: 'Waiter 1',
        status: 'OFFERED',
        createdAt: entry.createdAt,
        offeredBookingId: offered.offeredBookingId,
        offeredAt: offered.offeredAt,
        offerExpiresAt: offered.offerExpiresAt,
        bookingId: offered.offeredBookingId,
      });
    }
    const stored = await storedCounts(ctx.app.orm, event.id);
    expectConsistent(stored);
    expect(stored).toMatchObject({ registrationCount: 3, held: 2, heldQuantity: 2 });
    // Nothing is left for a booking: the offers hold the seats.
    expect(codeOf(await ctx.app.client.graphql(ctx.key, CREATE, { input: bookingInput(event.slug) }))).toBe('SOLD_OUT');
  });

  test('confirming an offer makes its entry CONVERTED; letting it lapse makes it EXPIRED and offers the seats on', async () => {
    const { event, bookings } = await soldOutEvent(3, [1, 2]);
    const first = await join(event.slug, 2);
    const second_ = await join(event.slug, 2);
    const third = await join(event.slug, 1);
    await ctx.app.client.graphql(ctx.key, CANCEL, { id: bookings[1].id });
    let state = await byId(event.slug);
    expect(state.get(first.id)!.status).toBe('OFFERED');
    expect(state.get(second_.id)!.position).toBe(1);

    // The offer lapses: the sweep stores it EXPIRED (its booking too) and offers the 2 seats on.
    await lapse(state.get(first.id)!.offeredBookingId!);
    expect((await byId(event.slug)).get(first.id)!.status).toBe('EXPIRED'); // as read, before the sweep
    state = await eventually(
      () => byId(event.slug),
      (value) => value.get(second_.id)!.status === 'OFFERED',
    );
    expect(state.get(first.id)!.status).toBe('EXPIRED');
    expect((await sql<{ status: string }>('select status from waitlist_entries where id = ?', [first.id]))[0].status).toBe('EXPIRED');
    expect((await readBooking(state.get(first.id)!.offeredBookingId!)).status).toBe('EXPIRED');
    expect(state.get(third.id)).toMatchObject({ status: 'WAITING', position: 1 });

    const offer = state.get(second_.id)!.offeredBookingId!;
    const confirmed = await ctx.app.client.graphql(ctx.key, CONFIRM, { id: offer });
    expect(confirmed.body.data.confirmBooking.status).toBe('CONFIRMED');
    expect((await byId(event.slug)).get(second_.id)!.status).toBe('CONVERTED');
    const stored = await storedCounts(ctx.app.orm, event.id);
    expectConsistent(stored);
    expect(stored).toMatchObject({ registrationCount: 3, held: 0 });
    // A converted entry's booking is an ordinary one: cancelling it offers its seats to the next.
    await ctx.app.client.graphql(ctx.key, CANCEL, { id: offer });
    expect((await byId(event.slug)).get(third.id)!.status).toBe('OFFERED');
    expect((await byId(event.slug)).get(second_.id)!.status).toBe('CONVERTED');
    expectConsistent(await storedCounts(ctx.app.orm, event.id));
  });

  test('cancelling an offered booking makes its entry EXPIRED and offers the seats on', async () => {
    const { event, bookings } = await soldOutEvent(1, [1]);
    const first = await join(event.slug, 1);
    const next = await join(event.slug, 1);
    await ctx.app.client.graphql(ctx.key, CANCEL, { id: bookings[0].id });
    const offer = (await byId(event.slug)).get(first.id)!.offeredBookingId!;
    expect((await ctx.app.client.graphql(ctx.key, CANCEL, { id: offer })).body.data.cancelBooking.status).toBe('CANCELLED');
    const state = await byId(event.slug);
    expect(state.get(first.id)!.status).toBe('EXPIRED');
    expect(state.get(next.id)!.status).toBe('OFFERED');
    expectConsistent(await storedCounts(ctx.app.orm, event.id));
  });

  test('an expired hold offers its seats: by the sweep, and by a booking that finds it lapsed', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 2 });
    const hold = await book(event.slug, { quantity: 2, hold: true });
    const waiter = await join(event.slug, 2);
    await lapse(hold.id);
    const state = await eventually(
      () => byId(event.slug),
      (value) => value.get(waiter.id)!.status === 'OFFERED',
    );
    expect(state.get(waiter.id)!.status).toBe('OFFERED');
    expect((await readBooking(hold.id)).status).toBe('EXPIRED');
    expectConsistent(await storedCounts(ctx.app.orm, event.id));

    // The same from a refused booking's own expiry of lapsed holds: the waiting list comes first.
    const other = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 1 });
    const otherHold = await book(other.slug, { quantity: 1, hold: true, holdMinutes: 1 });
    const otherWaiter = await join(other.slug, 1);
    // Lapsed, and kept from the sweeps: the booking below finds it and expires it itself.
    await sql(`update bookings set expires_at = now() - interval '1 second' where id = ?`, [otherHold.id]);
    const refused = await ctx.app.client.graphql(ctx.key, CREATE, { input: bookingInput(other.slug) });
    expect(codeOf(refused)).toBe('SOLD_OUT');
    expect((await byId(other.slug)).get(otherWaiter.id)!.status).toBe('OFFERED');
    expectConsistent(await storedCounts(ctx.app.orm, other.id));
  });

  test('a raised capacity and a raised ticket-type quantity offer the new seats', async () => {
    const { event } = await soldOutEvent(2, [2]);
    const [a, b, c] = [await join(event.slug, 1), await join(event.slug, 2), await join(event.slug, 1)];
    const raised = await ctx.app.client.graphql(ctx.key, UPDATE_EVENT, { slug: event.slug, input: { capacity: 4 } });
    expect(raised.body.errors).toBeUndefined();
    let state = await byId(event.slug);
    expect([a, b, c].map((entry) => state.get(entry.id)!.status)).toEqual(['OFFERED', 'WAITING', 'OFFERED']);
    expectConsistent(await storedCounts(ctx.app.orm, event.id));

    const typed = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10, ticketTypes: [ticket({ quantity: 1 })] });
    const ticketTypeId = typed.ticketTypes[0].id;
    await book(typed.slug, { ticketTypeId });
    const [x, y] = [await join(typed.slug, 2, { ticketTypeId }), await join(typed.slug, 1, { ticketTypeId })];
    const more = await ctx.app.client.graphql(ctx.key, UPDATE_TICKET_TYPE, { id: ticketTypeId, input: { quantity: 3 } });
    expect(more.body.errors).toBeUndefined();
    state = await byId(typed.slug);
    expect([x, y].map((entry) => state.get(entry.id)!.status)).toEqual(['OFFERED', 'WAITING']);
    const offer = await readBooking(state.get(x.id)!.offeredBookingId!);
    expect(offer).toMatchObject({ status: 'HELD', quantity: 2, ticketType: { id: ticketTypeId } });
    expectConsistent(await storedCounts(ctx.app.orm, typed.id));
  });
});

describe('leaveWaitlist', () => {
  test('WAITING → LEFT (the others move up); again: unchanged; an OFFERED entry leaves, its hold is cancelled and offered on', async () => {
    const { event, bookings } = await soldOutEvent(1, [1]);
    const [a, b, c] = [await join(event.slug, 1), await join(event.slug, 1), await join(event.slug, 1)];
    const left = await ctx.app.client.graphql(ctx.key, LEAVE, { id: a.id });
    expect(left.body.data.leaveWaitlist).toMatchObject({ id: a.id, status: 'LEFT', position: null });
    expect((await ctx.app.client.graphql(ctx.key, LEAVE, { id: a.id })).body.data.leaveWaitlist).toEqual(left.body.data.leaveWaitlist);
    expect((await byId(event.slug)).get(b.id)!.position).toBe(1);

    await ctx.app.client.graphql(ctx.key, CANCEL, { id: bookings[0].id });
    const offered = (await byId(event.slug)).get(b.id)!;
    expect(offered.status).toBe('OFFERED');
    const leftOffer = await ctx.app.client.graphql(ctx.key, LEAVE, { id: b.id });
    expect(leftOffer.body.data.leaveWaitlist).toMatchObject({ status: 'LEFT', offeredBookingId: offered.offeredBookingId });
    expect((await readBooking(offered.offeredBookingId!)).status).toBe('CANCELLED');
    const state = await byId(event.slug);
    expect(state.get(c.id)!.status).toBe('OFFERED');

    // Converted: it has a booking (cancel that instead).
    await ctx.app.client.graphql(ctx.key, CONFIRM, { id: state.get(c.id)!.offeredBookingId });
    const refused = await ctx.app.client.graphql(ctx.key, LEAVE, { id: c.id });
    expect(codeOf(refused)).toBe('WAITLIST_ENTRY_NOT_WAITING');
    expect(detailsOf(refused)).toEqual({ id: c.id, status: 'CONVERTED' });
    expectConsistent(await storedCounts(ctx.app.orm, event.id));
  });

  test("another organization's entry, a missing one and a malformed id", async () => {
    const { event } = await soldOutEvent(1, [1]);
    const entry = await join(event.slug, 1);
    const { key: otherKey } = await createTenant(ctx.app.orm);
    for (const id of [entry.id, 'wl_doesnotexist0000000000']) {
      const refused = await ctx.app.client.graphql(otherKey, LEAVE, { id });
      expect(codeOf(refused)).toBe('WAITLIST_ENTRY_NOT_FOUND');
      expect(detailsOf(refused)).toEqual({ id });
    }
    expect(codeOf(await ctx.app.client.graphql(ctx.key, LEAVE, { id: 'bk_abc' }))).toBe('VALIDATION_ERROR');
    expect((await byId(event.slug)).get(entry.id)!.status).toBe('WAITING');
  });
});

describe.each([
  ['on its row', 40, 1],
  ['slotted', 600, 15],
])('two instances racing on an event %s (capacity %d)', (_kind, capacity, unit) => {
  test('cancellations, expiries, confirms and leaves with offers: exact counts, no seat offered twice, nobody left waiting who fits', async () => {
    const clients = [ctx.app.client, ctx.second.client];
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity, ticketTypes: [ticket({ quantity: capacity })] });
    const ticketTypeId = event.ticketTypes[0].id;
    // Sold out: 20 bookings of capacity/20 (half of them holds).
    const sold = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        clients[index % 2].graphql(ctx.key, CREATE, { input: bookingInput(event.slug, { quantity: capacity / 20, hold: index % 2 === 1, ticketTypeId: index % 4 < 2 ? ticketTypeId : null }) }),
      ),
    );
    const soldIds = sold.map((response) => response.body.data.createBooking.id as string);
    // 30 waiting, of 1 to 3 units each, joined from both instances.
    const waiting: Entry[] = [];
    for (let index = 0; index < 30; index += 1) {
      waiting.push(await join(event.slug, unit * (1 + (index % 3)), index % 3 === 0 ? { ticketTypeId } : {}, clients[index % 2]));
    }

    // At once, from both instances: cancellations of confirmed bookings, lapsed holds, confirmations of others.
    await Promise.all([
      ...soldIds.filter((_, index) => index % 2 === 0).slice(0, 6).map((id, index) => clients[index % 2].graphql(ctx.key, CANCEL, { id })),
      ...soldIds.filter((_, index) => index % 2 === 1).slice(0, 4).map(lapse),
      ...soldIds.filter((_, index) => index % 2 === 1).slice(4).flatMap((id) => clients.map((client) => client.graphql(ctx.key, CONFIRM, { id }))),
    ]);
    // Offers made meanwhile are confirmed, cancelled or left, at once, from both instances.
    const settle = async () => {
      await eventually(
        () => sql<{ held: string }>(`select count(*) as held from bookings where event_id = ? and status = 'HELD' and expires_at <= now()`, [event.id]),
        (rows) => Number(rows[0].held) === 0,
      );
      // The sweeps' safety net and the offer passes have run: nobody waits who fits what is free.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    };
    await settle();
    const offered = (await entries(event.slug)).filter((entry) => entry.status === 'OFFERED');
    expect(offered.length).toBeGreaterThan(0);
    await Promise.all(
      offered.map((entry, index) =>
        index % 3 === 0
          ? clients[index % 2].graphql(ctx.key, CONFIRM, { id: entry.offeredBookingId })
          : index % 3 === 1
            ? clients[index % 2].graphql(ctx.key, CANCEL, { id: entry.offeredBookingId })
            : clients[index % 2].graphql(ctx.key, LEAVE, { id: entry.id }),
      ),
    );
    await settle();

    const stored = await storedCounts(ctx.app.orm, event.id);
    expectConsistent(stored);
    expect(stored.registrationCount + stored.held).toBeLessThanOrEqual(capacity);
    expect(stored.slots.count > 0).toBe(capacity >= 500);
    const final = await entries(event.slug);
    // Every offered booking belongs to exactly one entry, of its quantity and ticket type.
    const offers = final.filter((entry) => entry.offeredBookingId !== null);
    expect(new Set(offers.map((entry) => entry.offeredBookingId)).size).toBe(offers.length);
    const rows = await sql<{ id: string; quantity: number; ticket_type_id: string | null; status: string }>(
      `select id, quantity, ticket_type_id, status from bookings where id = any(?::text[])`,
      [`{${offers.map((entry) => entry.offeredBookingId).join(',')}}`],
    );
    const bookingsById = new Map(rows.map((row) => [row.id, row]));
    for (const entry of offers) {
      const booking = bookingsById.get(entry.offeredBookingId!)!;
      expect([booking.quantity, booking.ticket_type_id]).toEqual([entry.quantity, entry.ticketTypeId]);
      const expected = { OFFERED: 'HELD', CONVERTED: 'CONFIRMED', LEFT: 'CANCELLED' } as Record<string, string>;
      if (entry.status in expected) expect([entry.status, booking.status]).toEqual([entry.status, expected[entry.status]]);
      if (entry.status === 'EXPIRED') expect(['EXPIRED', 'CANCELLED']).toContain(booking.status);
    }
    // Whoever still waits does not fit what is free now.
    const eventFree = capacity - stored.registrationCount - stored.held;
    const typeFree = stored.ticketTypes[0].quantity - stored.ticketTypes[0].sold - (stored.ticketTypes[0].held ?? 0);
    for (const entry of final.filter((candidate) => candidate.status === 'WAITING')) {
      expect(entry.quantity > eventFree || (entry.ticketTypeId !== null && entry.quantity > typeFree)).toBe(true);
    }
    expect(waiting).toHaveLength(30);
  });
});

test('a slotted event gathers the room of several slots for a large offer', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 500 });
  const bookings = [];
  for (let index = 0; index < 10; index += 1) bookings.push(await book(event.slug, { quantity: 50 }));
  const large = await join(event.slug, 120);
  const small = await join(event.slug, 30);
  // 150 seats back, in several slots: the 120 and then the 30 are offered.
  await Promise.all(bookings.slice(0, 3).map((booking) => ctx.app.client.graphql(ctx.key, CANCEL, { id: booking.id })));
  const state = await eventually(
    () => byId(event.slug),
    (value) => value.get(large.id)!.status === 'OFFERED' && value.get(small.id)!.status === 'OFFERED',
  );
  expect([state.get(large.id)!.status, state.get(small.id)!.status]).toEqual(['OFFERED', 'OFFERED']);
  const stored = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(stored);
  expect(stored).toMatchObject({ registrationCount: 350, held: 150 });
  expect(stored.slots.count).toBe(16);
});
