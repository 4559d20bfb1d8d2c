import type { HttpResponse } from './helpers/https-client';
import {
  bookConcurrently,
  bookingInput,
  CANCEL_BOOKING,
  createPublishedEvent,
  expectConsistent,
  storedCounts,
  ticket,
} from './helpers/bookings';
import { createTenant } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

// Dozens of requests queue on one row lock; leave room on a loaded machine.
jest.setTimeout(60_000);

const ctx = useTestApp({}, { secondInstance: true });

const book = bookConcurrently;

function outcome(responses: HttpResponse[]) {
  const confirmed = responses.filter((response) => response.body?.data?.createBooking?.status === 'CONFIRMED');
  const soldOut = responses.filter((response) => response.body?.errors?.[0]?.extensions?.code === 'SOLD_OUT');
  return { confirmed, soldOut, serverErrors: responses.filter((response) => response.status >= 500) };
}

test('30 parallel bookings on an event with capacity 10: exactly 10 confirmed, the rest SOLD_OUT', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 10 });
  ctx.app.sql.reset();

  const responses = await book([ctx.app.client], key, 30, (index) => bookingInput(event.slug, { attendeeEmail: `guest${index}@example.com` }));

  const { confirmed, soldOut, serverErrors } = outcome(responses);
  expect(serverErrors).toEqual([]);
  expect(confirmed).toHaveLength(10);
  expect(soldOut).toHaveLength(20);
  for (const response of soldOut) {
    expect(response.body.errors[0].extensions.details).toEqual({ limitedBy: 'capacity', available: 0, requested: 1 });
    expect(response.body.data).toBeNull();
  }
  // The check happens under a row lock taken in the database, not in this process.
  expect(ctx.app.sql.statements.some((statement) => /from "?events"? .* for (no key )?update/i.test(statement))).toBe(true);

  const counts = await storedCounts(ctx.app.orm, event.id);
  expect(counts).toMatchObject({ registrationCount: 10, confirmedQuantity: 10, confirmedBookings: 10 });
  const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(read.body.registrationCount).toBe(10);
});

test('30 parallel bookings of a ticket type with quantity 10: exactly 10 confirmed, sold = 10', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket({ quantity: 10 }), ticket({ name: 'VIP', quantity: 5 })] });
  const [general, vip] = event.ticketTypes;

  const responses = await book([ctx.app.client], key, 30, (index) => bookingInput(event.slug, { ticketTypeId: general.id, attendeeName: `Guest ${index}` }));

  const { confirmed, soldOut, serverErrors } = outcome(responses);
  expect(serverErrors).toEqual([]);
  expect(confirmed).toHaveLength(10);
  expect(soldOut).toHaveLength(20);
  expect(soldOut[0].body.errors[0].extensions.details).toEqual({
    limitedBy: 'ticketType',
    ticketTypeId: general.id,
    available: 0,
    requested: 1,
  });

  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(10);
  expect(counts.ticketTypes).toEqual([
    { id: general.id, sold: 10, quantity: 10, confirmedQuantity: 10 },
    { id: vip.id, sold: 0, quantity: 5, confirmedQuantity: 0 },
  ]);
  const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(read.body.ticketTypes.map((type: { sold: number }) => type.sold)).toEqual([10, 0]);
});

test('two service instances on one database never oversell: capacity and ticket quantity', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const byCapacity = await createPublishedEvent(ctx.app.client, key, { capacity: 10 });
  const byTicket = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket({ quantity: 10 })] });
  const ticketTypeId = byTicket.ticketTypes[0].id;

  const [capacityResponses, ticketResponses] = await Promise.all([
    book([ctx.app.client, ctx.second.client], key, 40, () => bookingInput(byCapacity.slug)),
    book([ctx.app.client, ctx.second.client], key, 40, () => bookingInput(byTicket.slug, { ticketTypeId })),
  ]);

  for (const [responses, event] of [
    [capacityResponses, byCapacity],
    [ticketResponses, byTicket],
  ] as const) {
    const { confirmed, soldOut, serverErrors } = outcome(responses);
    expect(serverErrors).toEqual([]);
    expect(confirmed).toHaveLength(10);
    expect(soldOut).toHaveLength(30);
    const counts = await storedCounts(ctx.app.orm, event.id);
    expectConsistent(counts);
    expect(counts.confirmedBookings).toBe(10);
  }
  // Both instances took part.
  const confirmedIds = outcome(capacityResponses).confirmed.map((response) => response.body.data.createBooking.id);
  expect(new Set(confirmedIds).size).toBe(10);
});

test('parallel creates and cancels of mixed quantities keep every count equal to the bookings table', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, {
    capacity: 25,
    ticketTypes: [ticket({ quantity: 12 }), ticket({ name: 'VIP', quantity: 8 })],
  });
  const typeIds = event.ticketTypes.map((type) => type.id);
  const initial = await book([ctx.app.client], key, 8, (index) =>
    bookingInput(event.slug, { quantity: 1 + (index % 2), ticketTypeId: index % 3 === 0 ? null : typeIds[index % 2] }),
  );
  const initialIds = initial.map((response) => response.body.data.createBooking.id as string);

  const clients = [ctx.app.client, ctx.second.client];
  await Promise.all([
    ...initialIds.slice(0, 5).map((id, index) => clients[index % 2].graphql(key, CANCEL_BOOKING, { id })),
    // The same booking cancelled twice at once: one succeeds, one is refused.
    ...[0, 1].map((index) => clients[index].graphql(key, CANCEL_BOOKING, { id: initialIds[6] })),
    book(clients, key, 30, (index) =>
      bookingInput(event.slug, { quantity: 1 + (index % 3), ticketTypeId: index % 4 === 0 ? null : typeIds[index % 2] }),
    ),
  ]);

  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBeLessThanOrEqual(25);
  for (const type of counts.ticketTypes) expect(type.sold).toBeLessThanOrEqual(type.quantity);
  const [cancelled] = await ctx.app.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ count: string }>>("select count(*) as count from bookings where event_id = ? and status = 'CANCELLED'", [event.id]);
  expect(Number(cancelled.count)).toBe(6);
});
