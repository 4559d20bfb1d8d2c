import { bookingInput, CANCEL_BOOKING, CREATE_BOOKING, createPublishedEvent, LIST_BOOKINGS, ticket } from './helpers/bookings';
import type { HttpResponse } from './helpers/https-client';
import { useTestApp } from './helpers/use-test-app';
import { expectGraphqlErrorStatus } from './helpers/event-api';

const ctx = useTestApp({}, { tenant: true });
let event: Awaited<ReturnType<typeof createPublishedEvent>>;
beforeAll(async () => {
  event = await createPublishedEvent(ctx.app.client, ctx.key, { capacity: 5, ticketTypes: [ticket()] });
});

/** A VALIDATION_ERROR naming exactly `fields` (every failing one), never a 5xx. */
function expectValidationError(response: HttpResponse, fields: string[]): void {
  const [error] = response.body.errors;
  expect(error.extensions.code).toBe('VALIDATION_ERROR');
  // 400 without data for an argument of the wrong type or range, 200 with data for a field rule.
  expectGraphqlErrorStatus({ code: error.extensions.code, status: response.status, executed: 'data' in response.body }, 400);
  const reported = (error.extensions.details.errors as Array<{ field: string; message: string }>).map((item) => item.field);
  expect([...new Set(reported)].sort()).toEqual([...fields].sort());
  expect(response.text).not.toMatch(/stack|select |insert |at \//i);
}

async function expectNothingBooked(): Promise<void> {
  const [row] = await ctx.app.orm.em.fork().getConnection().execute('select registration_count from events where id = ?', [event.id]);
  expect(row.registration_count).toBe(0);
}

test('createBooking reports every failing field of its input at once', async () => {
  const response = await ctx.app.client.graphql(ctx.key, CREATE_BOOKING, {
    input: { eventSlug: 'Not A Slug', ticketTypeId: 'nope', quantity: 0, attendeeEmail: 'not-an-email', attendeeName: '   ' },
  });
  expectValidationError(response, ['eventSlug', 'ticketTypeId', 'quantity', 'attendeeEmail', 'attendeeName']);
  await expectNothingBooked();
});

test.each([
  ['quantity above the maximum', { quantity: 1001 }, ['quantity']],
  ['negative quantity', { quantity: -3 }, ['quantity']],
  ['email over 254 characters', { attendeeEmail: `${'a'.repeat(250)}@example.com` }, ['attendeeEmail']],
  ['email without domain', { attendeeEmail: 'ada@' }, ['attendeeEmail']],
  ['empty name', { attendeeName: '' }, ['attendeeName']],
  ['name over 200 characters', { attendeeName: 'x'.repeat(201) }, ['attendeeName']],
  ['slug too long', { eventSlug: 'a'.repeat(101) }, ['eventSlug']],
  ['ticket type id of another kind', { ticketTypeId: 'bk_abc' }, ['ticketTypeId']],
])('createBooking: %s -> VALIDATION_ERROR', async (_name, overrides, fields) => {
  const response = await ctx.app.client.graphql(ctx.key, CREATE_BOOKING, { input: bookingInput(event.slug, overrides) });
  expectValidationError(response, fields);
  await expectNothingBooked();
});

test.each([
  ['fractional quantity', { quantity: 1.5 }, ['quantity']],
  ['quantity as text', { quantity: 'two' }, ['quantity']],
  ['quantity beyond 32 bits', { quantity: 2 ** 31 }, ['quantity']],
  ['name as a number and email as an object', { attendeeName: 5, attendeeEmail: { at: 'x' } }, ['attendeeName', 'attendeeEmail']],
  ['missing required fields', { quantity: undefined, attendeeEmail: undefined, eventSlug: undefined }, ['quantity', 'attendeeEmail', 'eventSlug']],
])('createBooking variables of the wrong type: %s -> 400 VALIDATION_ERROR', async (_name, overrides, fields) => {
  const response = await ctx.app.client.graphql(ctx.key, CREATE_BOOKING, { input: bookingInput(event.slug, overrides) });
  expect(response.status).toBe(400);
  expectValidationError(response, fields);
});

test('createBooking with no input at all -> 400 naming input', async () => {
  const response = await ctx.app.client.graphql(ctx.key, CREATE_BOOKING, {});
  expect(response.status).toBe(400);
  expectValidationError(response, ['input']);
});

test.each([
  ['a malformed id', { id: 'booking-1' }],
  ['an id of another kind', { id: 'evt_abc' }],
  ['an empty id', { id: '' }],
  ['a number', { id: 42 }],
])('cancelBooking with %s -> VALIDATION_ERROR on id', async (_name, variables) => {
  expectValidationError(await ctx.app.client.graphql(ctx.key, CANCEL_BOOKING, variables), ['id']);
});

test('Query.bookings reports eventSlug, page and limit together; a bad status names status', async () => {
  expectValidationError(await ctx.app.client.graphql(ctx.key, LIST_BOOKINGS, { eventSlug: 'BAD', page: 0, limit: 101 }), [
    'eventSlug',
    'page',
    'limit',
  ]);
  const badStatus = await ctx.app.client.graphql(ctx.key, LIST_BOOKINGS, { eventSlug: event.slug, status: 'PENDING', page: 'one' });
  expect(badStatus.status).toBe(400);
  expectValidationError(badStatus, ['status', 'page']);
  expect(badStatus.body.errors[0].extensions.details.errors).toContainEqual({ field: 'status', message: 'status must be one of HELD, CONFIRMED, CANCELLED, EXPIRED' });
});

test('Event.bookings arguments are checked too, and the event itself is still returned', async () => {
  const response = await ctx.app.client.graphql(ctx.key, `query($slug: String!) { event(slug: $slug) { slug bookings(page: 0, limit: 1000) { total } } }`, {
    slug: event.slug,
  });
  expect(response.body.data.event).toEqual({ slug: event.slug, bookings: null });
  expectValidationError(response, ['page', 'limit']);
});

test('an inline literal of the wrong type is 400 naming the argument, as the same value in a variable is', async () => {
  const inline = await ctx.app.client.graphql(ctx.key, `mutation { cancelBooking(id: { x: 1 }) { id } }`);
  const variable = await ctx.app.client.graphql(ctx.key, `mutation C($id: ID!) { cancelBooking(id: $id) { id } }`, { id: { x: 1 } });
  for (const response of [inline, variable]) {
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'id', message: 'id must be a string' }] },
    });
  }
});
