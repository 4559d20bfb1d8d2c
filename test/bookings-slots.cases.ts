import type { HttpResponse } from './helpers/https-client';
import {
  bookConcurrently,
  ADD_TICKET_TYPE,
  bookingInput,
  CANCEL_BOOKING,
  CREATE_BOOKING,
  createPublishedEvent,
  expectConsistent,
  REMOVE_TICKET_TYPE,
  storedCounts,
  ticket,
  UPDATE_TICKET_TYPE,
} from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';
import { SLOT_COUNT, SLOTTED_MIN_CAPACITY } from '../src/modules/inventory/inventory.policy';
import { openForBookings } from '../src/modules/inventory/inventory.repository';

// Inventory slots (src/modules/inventory/, docs/architecture.md): a hot event's seats split over rows that
// bookings claim side by side. Every count stays exact and nothing is ever oversold, also across
// two server processes and when the last seats are spread over several slots.
jest.setTimeout(120_000);

const ctx = useTestApp({}, { secondInstance: true });

const book = bookConcurrently;

const confirmedOf = (responses: HttpResponse[]) => responses.filter((response) => response.body?.data?.createBooking?.status === 'CONFIRMED');
const codeOf = (response: HttpResponse): string | undefined => response.body?.errors?.[0]?.extensions?.code;
const seatsOf = (responses: HttpResponse[]) => confirmedOf(responses).reduce((sum, response) => sum + (response.body.data.createBooking.quantity as number), 0);

test(`an event published with ${SLOTTED_MIN_CAPACITY} seats or more, or without a capacity, is slotted; its shares add up to its capacity`, async () => {
  const { key } = await createTenant(ctx.app.orm);
  const big = await createPublishedEvent(ctx.app.client, key, { capacity: SLOTTED_MIN_CAPACITY, ticketTypes: [ticket({ quantity: 70 })] });
  const unlimited = await createPublishedEvent(ctx.app.client, key, {});
  const small = await createPublishedEvent(ctx.app.client, key, { capacity: SLOTTED_MIN_CAPACITY - 1 });

  const bigCounts = await storedCounts(ctx.app.orm, big.id);
  expect(bigCounts.slots).toMatchObject({ count: SLOT_COUNT, sharesLeft: SLOTTED_MIN_CAPACITY, capacityLeft: SLOTTED_MIN_CAPACITY });
  const [shares] = await ctx.app.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ total: string; slots: string }>>('select sum(seats) as total, count(*) as slots from ticket_type_slots where ticket_type_id = ?', [
      big.ticketTypes[0].id,
    ]);
  expect({ total: Number(shares.total), slots: Number(shares.slots) }).toEqual({ total: 70, slots: SLOT_COUNT });
  expect((await storedCounts(ctx.app.orm, unlimited.id)).slots.count).toBe(SLOT_COUNT);
  expect((await storedCounts(ctx.app.orm, small.id)).slots.count).toBe(0);
});

test('bookings of a slotted event go on while its row is locked (they take no lock on it); reads count its slots', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 1000, ticketTypes: [ticket({ quantity: 800 })] });
  // Another transaction holds the event's row (as an update of it would) while the bookings run.
  const transaction = await ctx.app.orm.em.getKnex().transaction();
  try {
    await transaction.raw('select id from events where id = ? for no key update', [event.id]);
    ctx.app.sql.reset();
    const responses = await book([ctx.app.client, ctx.second.client], key, 12, (index) =>
      bookingInput(event.slug, { quantity: 1 + (index % 3), ticketTypeId: event.ticketTypes[0].id }),
    );
    expect(confirmedOf(responses)).toHaveLength(12);
    expect(ctx.app.sql.statements.some((statement) => /from event_slots s .*for update of s skip locked/s.test(statement))).toBe(true);
  } finally {
    await transaction.commit();
  }
  // The same on an event that keeps its count on its row waits for that row: the test above would time out.
  const small = await createPublishedEvent(ctx.app.client, key, { capacity: 10 });
  const holding = await ctx.app.orm.em.getKnex().transaction();
  await holding.raw('select id from events where id = ? for no key update', [small.id]);
  const waiting = ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(small.slug) });
  const first = await Promise.race([waiting.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]);
  await holding.commit();
  expect(first).toBe('waiting');
  expect((await waiting).body.data.createBooking.status).toBe('CONFIRMED');

  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(24);
  const rest = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(rest.body).toMatchObject({ registrationCount: 24, ticketTypes: [{ sold: 24 }] });
  const listed = await ctx.app.client.rest('GET', `/v1/events?limit=100`, key);
  expect(listed.body.events.find((item: { slug: string }) => item.slug === event.slug)).toMatchObject({ registrationCount: 24 });
  const graphql = await ctx.app.client.graphql(key, 'query($slug: String!) { event(slug: $slug) { registrationCount ticketTypes { sold } } }', { slug: event.slug });
  expect(graphql.body.data.event).toEqual({ registrationCount: 24, ticketTypes: [{ sold: 24 }] });
});

test('one statement books either kind of event: a slotted and an unslotted one booked alternately from one process, through both doors, each on its first statement', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const slotted = await createPublishedEvent(ctx.app.client, key, { capacity: SLOTTED_MIN_CAPACITY, ticketTypes: [ticket({ quantity: 100 })] });
  const onRow = await createPublishedEvent(ctx.app.client, key, { capacity: 20, ticketTypes: [ticket({ quantity: 10 })] });
  const slotOf = async (id: string) => {
    const [row] = await ctx.app.orm.em.fork().getConnection().execute<Array<{ slot: number | null }>>('select slot from bookings where id = ?', [id]);
    return row.slot;
  };
  for (const [index, event] of [slotted, onRow, slotted, onRow, onRow, slotted].entries()) {
    const input = { quantity: 1, ticketTypeId: event.ticketTypes[0].id, attendeeEmail: `alternate${index}@example.com`, attendeeName: 'Alternate' };
    ctx.app.sql.reset();
    const made =
      index % 2 === 0
        ? (await ctx.app.client.graphql(key, CREATE_BOOKING, { input: { ...input, eventSlug: event.slug } })).body.data.createBooking
        : (await ctx.app.client.rest('POST', `/v1/events/${event.slug}/bookings`, key, input)).body;
    expect(made.status).toBe('CONFIRMED');
    // The first statement that books is the one: no other statement tries to.
    expect(ctx.app.sql.statements.filter((statement) => /insert into bookings/.test(statement))).toHaveLength(1);
    expect(await slotOf(made.id as string)).toEqual(event === slotted ? expect.any(Number) : null);
  }
  for (const event of [slotted, onRow]) {
    const counts = await storedCounts(ctx.app.orm, event.id);
    expectConsistent(counts);
    expect(counts.registrationCount).toBe(3);
  }
});

test('a booking that waits for the row of an event being published with slots books in its slots (the statement after reads the event as published)', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const draft = (await ctx.app.client.rest('POST', '/v1/events', key, eventInput({ capacity: 600 }))).body;
  const publishing = ctx.app.orm.em.fork();
  let booked: Promise<HttpResponse> | undefined;
  ctx.app.sql.reset();
  await publishing.transactional(async (tx) => {
    // As an update that publishes it: its row locked and changed, its slots made, then a commit.
    await tx.getConnection().execute(`update events set status = 'PUBLISHED' where id = ?`, [draft.id], 'run', tx.getTransactionContext());
    await openForBookings(tx, draft.id as string);
    booked = ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(draft.slug as string) });
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
  expect((await booked!).body.data.createBooking.status).toBe('CONFIRMED');
  // Its first statement read the event as a draft on its row, and found it slotted under the lock.
  expect(ctx.app.sql.statements.filter((statement) => /insert into bookings/.test(statement))).toHaveLength(2);
  const counts = await storedCounts(ctx.app.orm, draft.id as string);
  expectConsistent(counts);
  expect(counts).toMatchObject({ registrationCount: 1, slots: { count: SLOT_COUNT } });
});

test('two processes selling out a slotted event with bookings of mixed sizes: exactly its capacity, every other answer SOLD_OUT, every count exact', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const capacity = 600;
  const event = await createPublishedEvent(ctx.app.client, key, { capacity, ticketTypes: [ticket({ quantity: 450 })] });
  const ticketTypeId = event.ticketTypes[0].id;
  const clients = [ctx.app.client, ctx.second.client];

  // More asked than there is: some with the ticket type (450 of them at most), some without.
  const responses = await book(clients, key, 90, (index) =>
    bookingInput(event.slug, { quantity: 4 + (index % 9), ticketTypeId: index % 3 === 0 ? null : ticketTypeId, attendeeEmail: `guest${index}@example.com` }),
  );
  expect(responses.filter((response) => response.status >= 500)).toEqual([]);
  for (const response of responses) expect(['CONFIRMED', 'SOLD_OUT']).toContain(response.body?.data?.createBooking?.status ?? codeOf(response));
  for (const refused of responses.filter((response) => codeOf(response) === 'SOLD_OUT')) {
    const details = refused.body.errors[0].extensions.details;
    expect(details.available).toBeLessThan(details.requested);
  }
  let counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(seatsOf(responses));
  expect(counts.ticketTypes[0].sold).toBeLessThanOrEqual(450);

  // The last seats, one at a time, wherever they sit: exactly the capacity is sold, then SOLD_OUT.
  const left = capacity - counts.registrationCount;
  const last = await book(clients, key, left + 10, (index) => bookingInput(event.slug, { attendeeEmail: `last${index}@example.com` }));
  expect(confirmedOf(last)).toHaveLength(left);
  const refusals = last.filter((response) => codeOf(response) === 'SOLD_OUT');
  expect(refusals).toHaveLength(10);
  for (const refused of refusals) expect(refused.body.errors[0].extensions.details).toEqual({ limitedBy: 'capacity', available: 0, requested: 1 });
  counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(capacity);
});

test('a large booking takes seats spread over several slots, and SOLD_OUT names exactly what is left', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 520 });
  // 520 over 16 slots is 32 or 33 a slot: 200 seats at once need the room of several.
  const large = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: 200 }) });
  expect(large.body.data.createBooking).toMatchObject({ quantity: 200, status: 'CONFIRMED' });
  const tooMany = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: 321 }) });
  expect(tooMany.body.errors[0].extensions).toMatchObject({ code: 'SOLD_OUT', details: { limitedBy: 'capacity', available: 320, requested: 321 } });
  const rest = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug, { quantity: 320 }) });
  expect(rest.body.data.createBooking.status).toBe('CONFIRMED');
  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(520);
});

test('cancelling on a slotted event gives the seats back to their slot, once; they can be booked again', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 500, ticketTypes: [ticket({ quantity: 500 })] });
  const ticketTypeId = event.ticketTypes[0].id;
  const made = await book([ctx.app.client], key, 20, (index) => bookingInput(event.slug, { quantity: 25, ticketTypeId, attendeeEmail: `g${index}@example.com` }));
  expect(seatsOf(made)).toBe(500);
  const ids = confirmedOf(made).map((response) => response.body.data.createBooking.id as string);

  // Cancelled twice at once from two processes: one succeeds, one is refused.
  const twice = await Promise.all([ctx.app.client, ctx.second.client].map((client) => client.graphql(key, CANCEL_BOOKING, { id: ids[0] })));
  expect(twice.map((response) => response.body.data?.cancelBooking?.status ?? codeOf(response)).sort()).toEqual(['BOOKING_ALREADY_CANCELLED', 'CANCELLED']);
  await Promise.all(ids.slice(1, 4).map((id) => ctx.second.client.graphql(key, CANCEL_BOOKING, { id })));
  let counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(400);

  const again = await book([ctx.app.client, ctx.second.client], key, 12, () => bookingInput(event.slug, { quantity: 10, ticketTypeId }));
  expect(seatsOf(again)).toBe(100);
  counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(500);
});

test('unpublishing a slotted event closes its slots (EVENT_NOT_PUBLISHED), publishing again opens them; capacity and quantity changes keep the shares exact', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 800, ticketTypes: [ticket({ quantity: 600 })] });
  const ticketTypeId = event.ticketTypes[0].id;
  await book([ctx.app.client], key, 10, () => bookingInput(event.slug, { quantity: 3, ticketTypeId }));

  expect((await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { status: 'DRAFT' })).status).toBe(200);
  const closed = await ctx.app.client.graphql(key, CREATE_BOOKING, { input: bookingInput(event.slug) });
  expect(closed.body.errors[0].extensions).toMatchObject({ code: 'EVENT_NOT_PUBLISHED', details: { slug: event.slug, status: 'DRAFT' } });

  // Capacity below what is booked is refused; a smaller one above it splits what is left again.
  const below = await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { capacity: 29 });
  expect(below.status).toBe(400);
  expect((await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { capacity: 540 })).status).toBe(200);
  const quantity = await ctx.app.client.graphql(key, UPDATE_TICKET_TYPE, { id: ticketTypeId, input: { quantity: 31 } });
  expect(quantity.body.data.updateTicketType).toMatchObject({ quantity: 31, sold: 30 });
  const added = await ctx.app.client.graphql(key, ADD_TICKET_TYPE, { eventSlug: event.slug, input: ticket({ name: 'Late', quantity: 40 }) });
  const lateId = added.body.data.addTicketType.id as string;
  expect((await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { status: 'PUBLISHED' })).status).toBe(200);

  const typed = await book([ctx.app.client, ctx.second.client], key, 4, () => bookingInput(event.slug, { ticketTypeId }));
  expect(confirmedOf(typed)).toHaveLength(1);
  expect(typed.filter((response) => codeOf(response) === 'SOLD_OUT')[0].body.errors[0].extensions.details).toEqual({
    limitedBy: 'ticketType',
    ticketTypeId,
    available: 0,
    requested: 1,
  });
  const late = await book([ctx.app.client, ctx.second.client], key, 45, () => bookingInput(event.slug, { ticketTypeId: lateId }));
  expect(confirmedOf(late)).toHaveLength(40);
  const removed = await ctx.app.client.graphql(key, REMOVE_TICKET_TYPE, { id: lateId });
  expect(codeOf(removed)).toBe('TICKET_TYPE_HAS_SALES');
  expect(removed.body.errors[0].extensions.details).toEqual({ id: lateId, sold: 40 });

  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(71);
  expect(counts.slots).toMatchObject({ count: SLOT_COUNT, capacityLeft: 540 });
});

test('bookings, cancellations, capacity and quantity changes all at once on a slotted event, from two processes: no error, every count and share exact', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 600, ticketTypes: [ticket({ quantity: 400 })] });
  const ticketTypeId = event.ticketTypes[0].id;
  const clients = [ctx.app.client, ctx.second.client];
  const first = await book(clients, key, 20, (index) => bookingInput(event.slug, { quantity: 5 + (index % 4), ticketTypeId: index % 2 ? ticketTypeId : null }));
  const ids = confirmedOf(first).map((response) => response.body.data.createBooking.id as string);

  const responses = await Promise.all([
    book(clients, key, 60, (index) => bookingInput(event.slug, { quantity: 3 + (index % 7), ticketTypeId: index % 3 ? ticketTypeId : null })),
    Promise.all(ids.slice(0, 10).map((id, index) => clients[index % 2].graphql(key, CANCEL_BOOKING, { id }))),
    clients[0].rest('PUT', `/v1/events/${event.slug}`, key, { capacity: 650 }),
    clients[1].graphql(key, UPDATE_TICKET_TYPE, { id: ticketTypeId, input: { quantity: 420 } }),
    clients[1].rest('PUT', `/v1/events/${event.slug}`, key, { capacity: 640 }),
  ]);
  const [bookings, cancels, ...changes] = responses as [HttpResponse[], HttpResponse[], ...HttpResponse[]];
  for (const response of [...bookings, ...cancels, ...changes]) {
    expect(response.status).toBeLessThan(500);
    expect(codeOf(response) ?? 'none').not.toBe('INTERNAL_ERROR');
  }
  for (const response of bookings) expect(['CONFIRMED', 'SOLD_OUT']).toContain(response.body?.data?.createBooking?.status ?? codeOf(response));
  for (const response of cancels) expect(response.body.data.cancelBooking.status).toBe('CANCELLED');
  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  const stored = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(counts.registrationCount).toBeLessThanOrEqual(stored.body.capacity);
  expect(counts.ticketTypes[0].sold).toBeLessThanOrEqual(counts.ticketTypes[0].quantity);
  expect(counts.slots.capacityLeft).toBe(stored.body.capacity);
});
