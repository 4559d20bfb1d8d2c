import {
  bookingInput,
  CANCEL_BOOKING,
  CREATE_BOOKING,
  createPublishedEvent,
  expectConsistent,
  LIST_BOOKINGS,
  storedCounts,
  ticket,
} from './helpers/bookings';
import { createTenant, eventInput } from './helpers/factories';
import { useTestApp } from './helpers/use-test-app';

const ctx = useTestApp();

const create = (key: string, input: Record<string, unknown>) => ctx.app.client.graphql(key, CREATE_BOOKING, { input });
const cancel = (key: string, id: string) => ctx.app.client.graphql(key, CANCEL_BOOKING, { id });

test('a booking is created CONFIRMED, stored, and counted on the event and its ticket type', async () => {
  const { key, organization } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 50, ticketTypes: [ticket({ quantity: 20 })] });
  const ticketTypeId = event.ticketTypes[0].id;

  const response = await create(key, bookingInput(event.slug, { ticketTypeId, quantity: 3, attendeeName: '  Grace Hopper ' }));
  expect(response.status).toBe(200);
  const booking = response.body.data.createBooking;
  expect(booking).toEqual({
    id: expect.stringMatching(/^bk_[A-Za-z0-9]{20}$/),
    eventId: event.id,
    eventSlug: event.slug,
    quantity: 3,
    attendeeEmail: 'ada@example.com',
    attendeeName: 'Grace Hopper',
    status: 'CONFIRMED',
    createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    cancelledAt: null,
    expiresAt: null,
    confirmedAt: null,
    checkedInAt: null,
    ticketType: { id: ticketTypeId, name: 'General admission', sold: 3, quantity: 20 },
  });
  const [row] = await ctx.app.orm.em
    .fork()
    .getConnection()
    .execute('select organization_id, event_id, ticket_type_id, quantity, status from bookings where id = ?', [booking.id]);
  expect(row).toEqual({ organization_id: organization.id, event_id: event.id, ticket_type_id: ticketTypeId, quantity: 3, status: 'CONFIRMED' });

  const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(read.body.registrationCount).toBe(3);
  expect(read.body.ticketTypes[0].sold).toBe(3);
});

test('cancel frees the seats, a second cancel is refused without a second decrement, and the seats can be rebooked', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 2, ticketTypes: [ticket({ quantity: 2 })] });
  const ticketTypeId = event.ticketTypes[0].id;
  const first = (await create(key, bookingInput(event.slug, { ticketTypeId, quantity: 2 }))).body.data.createBooking;

  const full = await create(key, bookingInput(event.slug, { ticketTypeId }));
  expect(full.body.errors[0].extensions).toEqual({
    code: 'SOLD_OUT',
    details: { limitedBy: 'capacity', available: 0, requested: 1 },
  });

  const cancelled = await cancel(key, first.id);
  expect(cancelled.body.data.cancelBooking).toMatchObject({ id: first.id, status: 'CANCELLED', quantity: 2 });
  expect(cancelled.body.data.cancelBooking.cancelledAt).toMatch(/Z$/);
  expect(await storedCounts(ctx.app.orm, event.id)).toMatchObject({ registrationCount: 0, confirmedBookings: 0 });

  const again = await cancel(key, first.id);
  expect(again.body.data).toBeNull();
  expect(again.body.errors[0].extensions).toEqual({
    code: 'BOOKING_ALREADY_CANCELLED',
    details: { id: first.id, cancelledAt: cancelled.body.data.cancelBooking.cancelledAt },
  });
  const afterSecondCancel = await storedCounts(ctx.app.orm, event.id);
  expect(afterSecondCancel.registrationCount).toBe(0);
  expect(afterSecondCancel.ticketTypes[0].sold).toBe(0);

  const rebooked = await create(key, bookingInput(event.slug, { ticketTypeId, quantity: 2 }));
  expect(rebooked.body.data.createBooking.status).toBe('CONFIRMED');
  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts).toMatchObject({ registrationCount: 2, confirmedBookings: 1 });
});

test('SOLD_OUT names what ran out and how much is left; a smaller booking still fits', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 10, ticketTypes: [ticket({ quantity: 4 })] });
  const ticketTypeId = event.ticketTypes[0].id;
  await create(key, bookingInput(event.slug, { quantity: 5 }));

  const tooMany = await create(key, bookingInput(event.slug, { quantity: 6 }));
  expect(tooMany.body.errors[0].extensions.details).toEqual({ limitedBy: 'capacity', available: 5, requested: 6 });
  const tooManyOfType = await create(key, bookingInput(event.slug, { ticketTypeId, quantity: 5 }));
  expect(tooManyOfType.body.errors[0].extensions.details).toEqual({ limitedBy: 'ticketType', ticketTypeId, available: 4, requested: 5 });

  const fits = await create(key, bookingInput(event.slug, { ticketTypeId, quantity: 4 }));
  expect(fits.body.data.createBooking.quantity).toBe(4);
  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  expect(counts.registrationCount).toBe(9);
});

test('an event without capacity takes any number of bookings', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const response = await create(key, bookingInput(event.slug, { quantity: 1000 }));
  expect(response.body.data.createBooking.quantity).toBe(1000);
});

test('only a PUBLISHED event can be booked: DRAFT, CANCELLED and COMPLETED answer 409 EVENT_NOT_PUBLISHED', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const draft = await ctx.app.client.rest('POST', '/v1/events', key, eventInput());
  const cancelledEvent = await createPublishedEvent(ctx.app.client, key);
  await ctx.app.client.rest('PUT', `/v1/events/${cancelledEvent.slug}`, key, { status: 'CANCELLED' });
  const completed = await createPublishedEvent(ctx.app.client, key);
  // COMPLETED is a PUBLISHED event whose end has passed; no API moves dates into the past.
  await ctx.app.orm.em
    .fork()
    .getConnection()
    .execute("update events set start_date = now() - interval '2 days', end_date = now() - interval '1 day' where id = ?", [completed.id]);

  for (const [slug, status] of [
    [draft.body.slug, 'DRAFT'],
    [cancelledEvent.slug, 'CANCELLED'],
    [completed.slug, 'COMPLETED'],
  ]) {
    const response = await create(key, bookingInput(slug));
    expect(response.body.data).toBeNull();
    expect(response.body.errors[0].extensions).toEqual({ code: 'EVENT_NOT_PUBLISHED', details: { slug, status } });
  }
  const [row] = await ctx.app.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ count: string }>>('select count(*) as count from bookings where event_id in (?, ?, ?)', [
      draft.body.id,
      cancelledEvent.id,
      completed.id,
    ]);
  expect(Number(row.count)).toBe(0);
});

test('existing bookings can still be cancelled after the event is cancelled, freeing the count', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { capacity: 5 });
  const booking = (await create(key, bookingInput(event.slug, { quantity: 2 }))).body.data.createBooking;
  await ctx.app.client.rest('PUT', `/v1/events/${event.slug}`, key, { status: 'CANCELLED' });
  expect((await cancel(key, booking.id)).body.data.cancelBooking.status).toBe('CANCELLED');
  expect((await storedCounts(ctx.app.orm, event.id)).registrationCount).toBe(0);
});

test('REST DELETE is refused with EVENT_HAS_BOOKINGS while confirmed bookings exist, and allowed once all are cancelled', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket()] });
  const ticketTypeId = event.ticketTypes[0].id;
  const bookings = [];
  for (const quantity of [1, 2, 3]) {
    bookings.push((await create(key, bookingInput(event.slug, { ticketTypeId, quantity }))).body.data.createBooking.id as string);
  }
  await cancel(key, bookings[0]);

  const refused = await ctx.app.client.rest('DELETE', `/v1/events/${event.slug}`, key);
  expect(refused.status).toBe(409);
  expect(refused.body.error.code).toBe('EVENT_HAS_BOOKINGS');
  expect(refused.body.error.details).toEqual({ bookingCount: 2 });
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key)).status).toBe(200);

  await cancel(key, bookings[1]);
  const stillRefused = await ctx.app.client.rest('DELETE', `/v1/events/${event.slug}`, key);
  expect(stillRefused.body.error.details).toEqual({ bookingCount: 1 });
  await cancel(key, bookings[2]);

  const deleted = await ctx.app.client.rest('DELETE', `/v1/events/${event.slug}`, key);
  expect(deleted.status).toBe(204);
  expect((await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key)).status).toBe(404);
  const [row] = await ctx.app.orm.em
    .fork()
    .getConnection()
    .execute<Array<{ count: string }>>('select count(*) as count from bookings where event_id = ?', [event.id]);
  expect(Number(row.count)).toBe(0);
});

test('REST GET shows registrationCount and ticketTypes[].sold matching the bookings table after creates and cancels', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key, {
    capacity: 100,
    ticketTypes: [ticket({ quantity: 30 }), ticket({ name: 'VIP', price: 99.5, quantity: 10 })],
  });
  const [general, vip] = event.ticketTypes.map((type) => type.id);
  const plan: Array<[string | null, number]> = [
    [general, 3],
    [vip, 2],
    [null, 4],
    [general, 1],
    [vip, 5],
    [null, 2],
  ];
  const ids: string[] = [];
  for (const [ticketTypeId, quantity] of plan) {
    ids.push((await create(key, bookingInput(event.slug, { ticketTypeId, quantity }))).body.data.createBooking.id);
  }
  await cancel(key, ids[1]);
  await cancel(key, ids[2]);

  const counts = await storedCounts(ctx.app.orm, event.id);
  expectConsistent(counts);
  const read = await ctx.app.client.rest('GET', `/v1/events/${event.slug}`, key);
  expect(read.body.registrationCount).toBe(counts.confirmedQuantity);
  expect(read.body.registrationCount).toBe(3 + 1 + 5 + 2);
  expect(read.body.ticketTypes.map((type: { id: string; sold: number }) => [type.id, type.sold])).toEqual([
    [general, 4],
    [vip, 5],
  ]);
  const list = await ctx.app.client.rest('GET', '/v1/events', key);
  expect(list.body.events[0].registrationCount).toBe(11);
});

test('Query.bookings and Event.bookings list newest first, filter by status and paginate', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, key);
  const created: Array<{ id: string; createdAt: string }> = [];
  for (let index = 0; index < 5; index += 1) {
    created.push((await create(key, bookingInput(event.slug, { attendeeName: `Guest ${index}` }))).body.data.createBooking);
  }
  // Newest first, ties (same millisecond) broken by id, descending.
  const ids = created
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
    .map((booking) => booking.id);
  await cancel(key, ids[0]);

  const all = await ctx.app.client.graphql(key, LIST_BOOKINGS, { eventSlug: event.slug });
  expect(all.body.data.bookings.total).toBe(5);
  expect(all.body.data.bookings.bookings.map((booking: { id: string }) => booking.id)).toEqual([...ids].reverse());

  const page = await ctx.app.client.graphql(key, LIST_BOOKINGS, { eventSlug: event.slug, page: 2, limit: 2, status: 'CONFIRMED' });
  expect(page.body.data.bookings).toMatchObject({ total: 4, page: 2, limit: 2 });
  expect(page.body.data.bookings.bookings.map((booking: { id: string }) => booking.id)).toEqual([ids[2], ids[1]]);

  const pastEnd = await ctx.app.client.graphql(key, LIST_BOOKINGS, { eventSlug: event.slug, page: 9 });
  expect(pastEnd.body.data.bookings).toMatchObject({ bookings: [], total: 5 });

  const nested = await ctx.app.client.graphql(
    key,
    `query($slug: String!) { event(slug: $slug) { slug bookings(status: CANCELLED) { total bookings { id status eventSlug } } } }`,
    { slug: event.slug },
  );
  expect(nested.body.data.event.bookings).toEqual({
    total: 1,
    bookings: [{ id: ids[0], status: 'CANCELLED', eventSlug: event.slug }],
  });
});

test("tenancy: another organization's event, booking and ticket type are not found", async () => {
  const owner = await createTenant(ctx.app.orm);
  const stranger = await createTenant(ctx.app.orm);
  const event = await createPublishedEvent(ctx.app.client, owner.key, { ticketTypes: [ticket()] });
  const ticketTypeId = event.ticketTypes[0].id;
  const booking = (await create(owner.key, bookingInput(event.slug, { ticketTypeId }))).body.data.createBooking;

  const onForeignEvent = await create(stranger.key, bookingInput(event.slug));
  expect(onForeignEvent.body.errors[0].extensions).toEqual({ code: 'EVENT_NOT_FOUND', details: { slug: event.slug } });

  // The stranger has an event of the same slug: the owner's ticket type is not one of its types.
  const own = await createPublishedEvent(ctx.app.client, stranger.key, { slug: event.slug });
  const foreignType = await create(stranger.key, bookingInput(own.slug, { ticketTypeId }));
  expect(foreignType.body.errors[0].extensions).toEqual({ code: 'TICKET_TYPE_NOT_FOUND', details: { id: ticketTypeId } });

  const foreignCancel = await cancel(stranger.key, booking.id);
  expect(foreignCancel.body.errors[0].extensions).toEqual({ code: 'BOOKING_NOT_FOUND', details: { id: booking.id } });
  const missingCancel = await cancel(stranger.key, 'bk_doesNotExist000000000');
  expect(missingCancel.body.errors[0].extensions).toEqual({ code: 'BOOKING_NOT_FOUND', details: { id: 'bk_doesNotExist000000000' } });

  const foreignList = await ctx.app.client.graphql(stranger.key, LIST_BOOKINGS, { eventSlug: 'no-such-event' });
  expect(foreignList.body.errors[0].extensions.code).toBe('EVENT_NOT_FOUND');
  const ownList = await ctx.app.client.graphql(stranger.key, LIST_BOOKINGS, { eventSlug: own.slug });
  expect(ownList.body.data.bookings.total).toBe(0);

  const counts = await storedCounts(ctx.app.orm, event.id);
  expect(counts).toMatchObject({ registrationCount: 1, confirmedBookings: 1 });
});

test('a ticket type of another event of the same organization is not found for this event', async () => {
  const { key } = await createTenant(ctx.app.orm);
  const first = await createPublishedEvent(ctx.app.client, key, { ticketTypes: [ticket()] });
  const other = await createPublishedEvent(ctx.app.client, key);
  const response = await create(key, bookingInput(other.slug, { ticketTypeId: first.ticketTypes[0].id }));
  expect(response.body.errors[0].extensions.code).toBe('TICKET_TYPE_NOT_FOUND');
});
