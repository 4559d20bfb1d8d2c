import type { HttpResponse } from './helpers/https-client';
import { bookingInput, createPublishedEvent, expectConsistent, storedCounts, ticket } from './helpers/bookings';
import { createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// D20 holds through GraphQL: a HELD booking takes its seats until expiresAt; confirmBooking makes it
// CONFIRMED; from expiresAt on its seats are free (every count leaves them out, the next booking may
// take them) and the stored status and booking.expired follow within seconds, once, from any
// instance. Expiry is tested by moving a hold's expiresAt into the past in the database (the same
// code path as waiting for it), never by sleeping for minutes.
jest.setTimeout(60_000);

const FIELDS = 'id status quantity expiresAt confirmedAt cancelledAt createdAt';
const HOLD = `mutation($input: CreateBookingInput!) { createBooking(input: $input) { ${FIELDS} } }`;
const CONFIRM = `mutation($id: ID!) { confirmBooking(id: $id) { ${FIELDS} } }`;
const CANCEL = `mutation($id: ID!) { cancelBooking(id: $id) { ${FIELDS} } }`;
const READ = `query($id: ID!) { booking(id: $id) { ${FIELDS} } }`;
const COUNTS = `query($slug: String!) { event(slug: $slug) { registrationCount heldCount ticketTypes { id sold held } } }`;

const ctx = useTestApp({ HOLD_EXPIRY_INTERVAL_MS: '500' }, { tenant: true, secondInstance: { HOLD_EXPIRY_INTERVAL_MS: '500' } });

const sql = <T>(text: string, values: unknown[] = []) => ctx.app.orm.em.fork().getConnection().execute<T[]>(text, values);
const hold = (slug: string, overrides: Record<string, unknown> = {}) => ctx.app.client.graphql(ctx.key, HOLD, { input: bookingInput(slug, { hold: true, ...overrides }) });
const book = (slug: string, overrides: Record<string, unknown> = {}) => ctx.app.client.graphql(ctx.key, HOLD, { input: bookingInput(slug, overrides) });
const counts = async (slug: string) => (await ctx.app.client.graphql(ctx.key, COUNTS, { slug })).body.data.event;
const codeOf = (response: HttpResponse) => response.body.errors?.[0]?.extensions?.code;
/** Ends a hold now, as time passing would: its expiresAt moved into the past. */
const lapse = (bookingId: string) => sql(`update bookings set expires_at = now() - interval '1 second' where id = ?`, [bookingId]);
const storedStatus = async (bookingId: string) => (await sql<{ status: string }>('select status from bookings where id = ?', [bookingId]))[0].status;

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a hold is HELD until expiresAt (the organization holdMinutes, 15, unless it asks for fewer); its seats count as held, not registered', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10, ticketTypes: [ticket({ quantity: 8 })] });
  const ticketTypeId = event.ticketTypes[0].id;
  const before = Date.now();
  const held = await hold(event.slug, { quantity: 3, ticketTypeId });
  expect(held.body.errors).toBeUndefined();
  const booking = held.body.data.createBooking;
  expect(booking).toMatchObject({ status: 'HELD', quantity: 3, confirmedAt: null, cancelledAt: null });
  const minutes = (new Date(booking.expiresAt).getTime() - new Date(booking.createdAt).getTime()) / 60_000;
  expect(minutes).toBe(15);
  expect(new Date(booking.createdAt).getTime()).toBeGreaterThanOrEqual(before - 1_000);

  const short = (await hold(event.slug, { quantity: 1, holdMinutes: 5 })).body.data.createBooking;
  expect((new Date(short.expiresAt).getTime() - new Date(short.createdAt).getTime()) / 60_000).toBe(5);

  expect(await counts(event.slug)).toEqual({ registrationCount: 0, heldCount: 4, ticketTypes: [{ id: ticketTypeId, sold: 0, held: 3 }] });
  const stored = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(stored);
  expect(stored).toMatchObject({ registrationCount: 0, held: 4, heldQuantity: 4 });
});

test('held seats are taken: no booking or hold gets them while the hold lasts (SOLD_OUT counts them)', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 3 });
  expect((await hold(event.slug, { quantity: 2 })).body.data.createBooking.status).toBe('HELD');
  const refused = await book(event.slug, { quantity: 2 });
  expect(codeOf(refused)).toBe('SOLD_OUT');
  expect(refused.body.errors[0].extensions.details).toEqual({ limitedBy: 'capacity', available: 1, requested: 2 });
  expect(codeOf(await hold(event.slug, { quantity: 2 }))).toBe('SOLD_OUT');
  expect((await book(event.slug, { quantity: 1 })).body.data.createBooking.status).toBe('CONFIRMED');
  expectConsistent(await storedCounts(ctx.app.orm, event.id));
});

test('holdMinutes: 1 to the organization setting, and only with hold: true; every failing field at once', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10 });
  const over = await hold(event.slug, { holdMinutes: 16 });
  expect(codeOf(over)).toBe('VALIDATION_ERROR');
  expect(over.body.errors[0].extensions.details.errors).toEqual([{ field: 'holdMinutes', message: "holdMinutes must be at most 15 (the organization's holdMinutes)" }]);
  const zero = await hold(event.slug, { holdMinutes: 0, quantity: 0 });
  expect(zero.body.errors[0].extensions.details.errors.map((error: { field: string }) => error.field).sort()).toEqual(['holdMinutes', 'quantity']);
  const withoutHold = await book(event.slug, { holdMinutes: 5 });
  expect(withoutHold.body.errors[0].extensions.details.errors).toEqual([{ field: 'holdMinutes', message: 'holdMinutes needs hold: true' }]);
  expect((await storedCounts(ctx.app.orm, event.id)).heldQuantity).toBe(0);
});

test('confirmBooking: HELD → CONFIRMED with confirmedAt, seats move from held to registered; confirming again answers it unchanged', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 10, ticketTypes: [ticket({ quantity: 5 })] });
  const ticketTypeId = event.ticketTypes[0].id;
  const held = (await hold(event.slug, { quantity: 2, ticketTypeId })).body.data.createBooking;
  const confirmed = await ctx.app.client.graphql(ctx.key, CONFIRM, { id: held.id });
  expect(confirmed.body.errors).toBeUndefined();
  expect(confirmed.body.data.confirmBooking).toMatchObject({ id: held.id, status: 'CONFIRMED', expiresAt: held.expiresAt });
  expect(confirmed.body.data.confirmBooking.confirmedAt).not.toBeNull();
  expect(await counts(event.slug)).toEqual({ registrationCount: 2, heldCount: 0, ticketTypes: [{ id: ticketTypeId, sold: 2, held: 0 }] });
  const again = await ctx.app.client.graphql(ctx.key, CONFIRM, { id: held.id });
  expect(again.body.data.confirmBooking).toEqual(confirmed.body.data.confirmBooking);
  expectConsistent(await storedCounts(ctx.app.orm, event.id));
});

test('from expiresAt on the hold reads EXPIRED, its seats are free for the next booking, and confirm or cancel is HOLD_EXPIRED', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 2 });
  const held = (await hold(event.slug, { quantity: 2 })).body.data.createBooking;
  expect(codeOf(await book(event.slug))).toBe('SOLD_OUT');
  // Stop the sweeps from storing it first: this is about what holds before any process runs.
  await sql(`update bookings set expires_at = now() - interval '1 second', status = 'HELD' where id = ?`, [held.id]);
  expect((await ctx.app.client.graphql(ctx.key, READ, { id: held.id })).body.data.booking.status).toBe('EXPIRED');
  expect((await counts(event.slug)).heldCount).toBe(0);
  for (const mutation of [CONFIRM, CANCEL]) {
    const refused = await ctx.app.client.graphql(ctx.key, mutation, { id: held.id });
    expect(codeOf(refused)).toBe('HOLD_EXPIRED');
    expect(refused.body.errors[0].extensions.details).toEqual({ id: held.id, expiresAt: expect.any(String) });
  }
  const next = await book(event.slug, { quantity: 2 });
  expect(next.body.data.createBooking.status).toBe('CONFIRMED');
  expect(await storedStatus(held.id)).toBe('EXPIRED');
  const stored = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(stored);
  expect(stored).toMatchObject({ registrationCount: 2, held: 0 });
});

test('the stored status and one booking.expired message follow within seconds, from either instance', async () => {
  const { key: hookedKey, organization } = await createTenant(ctx.app.orm);
  const endpoint = await ctx.app.client.graphql(
    hookedKey,
    `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`,
    { input: { url: 'https://hooks.example.com/holds', eventTypes: ['booking.held', 'booking.expired', 'booking.confirmed'] } },
  );
  expect(endpoint.body.errors).toBeUndefined();
  const event = await createPublishedEvent(ctx.app.client, hookedKey, { capacity: 5 });
  const held = await Promise.all([1, 2, 3].map(() => ctx.app.client.graphql(hookedKey, HOLD, { input: bookingInput(event.slug, { hold: true }) })));
  const ids = held.map((response) => response.body.data.createBooking.id as string);
  for (const id of ids) await lapse(id);
  const statuses = await eventually(
    () => Promise.all(ids.map(storedStatus)),
    (values) => values.every((status) => status === 'EXPIRED'),
  );
  expect(statuses).toEqual(['EXPIRED', 'EXPIRED', 'EXPIRED']);
  const messages = await sql<{ type: string; body: string }>(
    `select type, body from webhook_messages where organization_id = ? order by created_at`,
    [organization.id],
  );
  expect(messages.filter((message) => message.type === 'booking.held')).toHaveLength(3);
  const expired = messages.filter((message) => message.type === 'booking.expired').map((message) => JSON.parse(message.body).data);
  expect(expired.map((data: { id: string }) => data.id).sort()).toEqual([...ids].sort());
  for (const data of expired) expect(data).toMatchObject({ status: 'EXPIRED', eventSlug: event.slug, expiresAt: expect.any(String) });
  const stored = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(stored);
  expect(stored.held).toBe(0);
});

test('cancelBooking cancels a hold before expiresAt and frees its seats; confirming it then is BOOKING_NOT_HELD', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 2 });
  const held = (await hold(event.slug, { quantity: 2 })).body.data.createBooking;
  const cancelled = await ctx.app.client.graphql(ctx.key, CANCEL, { id: held.id });
  expect(cancelled.body.data.cancelBooking).toMatchObject({ status: 'CANCELLED', cancelledAt: expect.any(String) });
  const refused = await ctx.app.client.graphql(ctx.key, CONFIRM, { id: held.id });
  expect(codeOf(refused)).toBe('BOOKING_NOT_HELD');
  expect(refused.body.errors[0].extensions.details).toEqual({ id: held.id, status: 'CANCELLED' });
  expect((await book(event.slug, { quantity: 2 })).body.data.createBooking.status).toBe('CONFIRMED');
  expectConsistent(await storedCounts(ctx.app.orm, event.id));
});

test.each([
  ['on its row', 10],
  ['slotted', 500],
])('a hold on an event %s cancelled since cannot be confirmed (EVENT_NOT_PUBLISHED), stays HELD and can be cancelled', async (_kind, capacity) => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity });
  const held = (await hold(event.slug, { quantity: 2 })).body.data.createBooking;
  expect((await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, ctx.key, { status: 'CANCELLED' })).status).toBe(200);
  const refused = await ctx.app.client.graphql(ctx.key, CONFIRM, { id: held.id });
  expect(codeOf(refused)).toBe('EVENT_NOT_PUBLISHED');
  expect(refused.body.errors[0].extensions.details).toEqual({ slug: event.slug, status: 'CANCELLED' });
  expect(await storedStatus(held.id)).toBe('HELD');
  expect((await ctx.app.client.graphql(ctx.key, CANCEL, { id: held.id })).body.data.cancelBooking.status).toBe('CANCELLED');
  const stored = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(stored);
  expect(stored).toMatchObject({ registrationCount: 0, held: 0 });
});

test('another organization cannot confirm a hold: BOOKING_NOT_FOUND, like a missing one', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 2 });
  const held = (await hold(event.slug)).body.data.createBooking;
  const { key: otherKey } = await createTenant(ctx.app.orm);
  for (const id of [held.id, 'bk_doesnotexist000000000000']) {
    expect(codeOf(await ctx.app.client.graphql(otherKey, CONFIRM, { id }))).toBe('BOOKING_NOT_FOUND');
  }
  expect(await storedStatus(held.id)).toBe('HELD');
});

describe.each([
  ['on its row', 20],
  ['slotted', 600],
])('an event %s (capacity %d)', (_kind, capacity) => {
  test('concurrent holds from two instances never oversell; confirm, cancel and expiry keep every count exact', async () => {
    const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity, ticketTypes: [ticket({ quantity: capacity - 10 })] });
    const ticketTypeId = event.ticketTypes[0].id;
    const clients = [ctx.app.client, ctx.second.client];
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        clients[index % 2].graphql(ctx.key, HOLD, { input: bookingInput(event.slug, { hold: true, quantity: capacity / 20, ticketTypeId: index % 2 ? ticketTypeId : null }) }),
      ),
    );
    const held = responses.filter((response) => response.body.data?.createBooking?.status === 'HELD');
    const soldOut = responses.filter((response) => codeOf(response) === 'SOLD_OUT');
    expect(held.length + soldOut.length).toBe(40);
    expect(held).toHaveLength(20);
    expectConsistent(await storedCounts(ctx.app.orm, event.id));
    const ids = held.map((response) => response.body.data.createBooking.id as string);

    // Some are confirmed (from both instances at once, twice each), some cancelled, some lapse.
    await Promise.all([
      ...ids.slice(0, 6).flatMap((id) => clients.map((client) => client.graphql(ctx.key, CONFIRM, { id }))),
      ...ids.slice(6, 10).map((id, index) => clients[index % 2].graphql(ctx.key, CANCEL, { id })),
      ...ids.slice(10, 16).map(lapse),
    ]);
    const statuses = await eventually(
      () => Promise.all(ids.map(storedStatus)),
      (values) => values.slice(10, 16).every((status) => status === 'EXPIRED'),
    );
    expect(statuses).toEqual([...Array(6).fill('CONFIRMED'), ...Array(4).fill('CANCELLED'), ...Array(6).fill('EXPIRED'), ...Array(4).fill('HELD')]);
    const stored = await storedCounts(ctx.app.orm, event.id);
    expectConsistent(stored);
    expect(stored).toMatchObject({ registrationCount: (6 * capacity) / 20, held: (4 * capacity) / 20, heldQuantity: (4 * capacity) / 20 });
    const read = await counts(event.slug);
    expect(read).toMatchObject({ registrationCount: (6 * capacity) / 20, heldCount: (4 * capacity) / 20 });

    // What the cancellations and expiries freed is booked again, exactly, and no more.
    const rest = await Promise.all(Array.from({ length: 14 }, (_, index) => clients[index % 2].graphql(ctx.key, HOLD, { input: bookingInput(event.slug, { quantity: capacity / 20 }) })));
    expect(rest.filter((response) => response.body.data?.createBooking?.status === 'CONFIRMED')).toHaveLength(10);
    const final = await storedCounts(ctx.app.orm, event.id);
    expectConsistent(final);
    expect(final.registrationCount + final.held).toBe(capacity);
    expect(final.slots.count > 0).toBe(capacity >= 500);
  });
});

test('a booking of a slotted event refused for lack of room takes back the seats of lapsed holds first', async () => {
  const event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 500 });
  const held = (await hold(event.slug, { quantity: 500 })).body.data.createBooking;
  expect(held.status).toBe('HELD');
  expect(codeOf(await book(event.slug))).toBe('SOLD_OUT');
  await sql(`update bookings set expires_at = now() - interval '1 second' where id = ?`, [held.id]);
  expect((await book(event.slug, { quantity: 400 })).body.data.createBooking.status).toBe('CONFIRMED');
  const stored = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(stored);
  expect(stored).toMatchObject({ registrationCount: 400, held: 0 });
  expect(ctx.organizationId).toBeDefined();
});
