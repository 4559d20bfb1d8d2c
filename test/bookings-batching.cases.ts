import { BookingStatus } from '../src/modules/booking/booking.entity';
import { insertBookings, insertEvents } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// Event.bookings on a list of events: a constant number of statements however many events are listed
// (no query per event), and each event gets its own page, newest first, with its own total.
const { CONFIRMED, CANCELLED } = BookingStatus;
const ctx = useTestApp({}, { tenant: true });
const bookingsPerEvent = new Map<string, number>();

beforeAll(async () => {
  const events = await insertEvents(ctx.app.orm, ctx.organizationId, 40, { ticketTypesEach: 1 });
  for (const [index, event] of events.entries()) {
    const statuses = Array.from({ length: index % 4 }, (_, n) => (n % 2 === 0 ? CONFIRMED : CANCELLED));
    await insertBookings(ctx.app.orm, { id: event.id, organizationId: ctx.organizationId }, statuses, event.ticketTypes.getItems()[0].id);
    bookingsPerEvent.set(event.slug, statuses.length);
  }
});

const QUERY = `query($limit: Int!, $status: BookingStatus) {
  events(limit: $limit) { events { slug bookings(limit: 2, status: $status) { total page limit bookings { id status createdAt ticketType { id } } } } }
}`;

async function statementsOf(limit: number, status?: BookingStatus) {
  await ctx.app.client.graphql(ctx.key, '{ events(limit: 1) { total } }');
  ctx.app.sql.reset();
  const response = await ctx.app.client.graphql(ctx.key, QUERY, { limit, status });
  const statements = ctx.app.sql.statements.filter((statement) => !/\bapi_keys\b/.test(statement));
  return { response, statements };
}

// Changes legitimately when Event.bookings' batching is redesigned (the bound of 8); a count that grows with the events listed is an N+1.
test('performance guard: listing 5 or 40 events with their bookings costs the same few statements', async () => {
  const small = await statementsOf(5);
  const large = await statementsOf(40);
  expect(large.response.body.errors).toBeUndefined();
  expect(large.statements.length).toBe(small.statements.length);
  expect(large.statements.length).toBeLessThanOrEqual(8);
});

test('each event gets its own page of bookings and its own total, newest first', async () => {
  const { response } = await statementsOf(40);
  const events = response.body.data.events.events as Array<{ slug: string; bookings: { total: number; bookings: Array<{ createdAt: string; ticketType: { id: string } }> } }>;
  expect(events).toHaveLength(40);
  for (const event of events) {
    const expected = bookingsPerEvent.get(event.slug)!;
    expect(event.bookings.total).toBe(expected);
    expect(event.bookings.bookings).toHaveLength(Math.min(expected, 2));
    const times = event.bookings.bookings.map((booking) => booking.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    for (const booking of event.bookings.bookings) expect(booking.ticketType.id).toMatch(/^tt_/);
  }
});

test('the status filter applies per event', async () => {
  const { response } = await statementsOf(40, CANCELLED);
  for (const event of response.body.data.events.events as Array<{ slug: string; bookings: { total: number; bookings: Array<{ status: string }> } }>) {
    const all = bookingsPerEvent.get(event.slug)!;
    expect(event.bookings.total).toBe(Math.floor(all / 2));
    for (const booking of event.bookings.bookings) expect(booking.status).toBe('CANCELLED');
  }
});
