import { BookingStatus } from '../src/modules/booking/booking.entity';
import { createTenant } from './helpers/factories';
import { insertBookings, insertEvents } from './helpers/event-rows';
import { startTestApp, type TestApp } from './helpers/test-app';

// Event.bookings on a list of events: a constant number of statements however many events are listed
// (no query per event), and each event gets its own page, newest first, with its own total.
const { CONFIRMED, CANCELLED } = BookingStatus;
let app: TestApp;
let key: string;
const bookingsPerEvent = new Map<string, number>();

beforeAll(async () => {
  app = await startTestApp();
  const tenant = await createTenant(app.orm);
  key = tenant.key;
  const events = await insertEvents(app.orm, tenant.organization.id, 40, { ticketTypesEach: 1 });
  for (const [index, event] of events.entries()) {
    const statuses = Array.from({ length: index % 4 }, (_, n) => (n % 2 === 0 ? CONFIRMED : CANCELLED));
    await insertBookings(app.orm, { id: event.id, organizationId: tenant.organization.id }, statuses, event.ticketTypes.getItems()[0].id);
    bookingsPerEvent.set(event.slug, statuses.length);
  }
});
afterAll(() => app.close());

const QUERY = `query($limit: Int!, $status: BookingStatus) {
  events(limit: $limit) { events { slug bookings(limit: 2, status: $status) { total page limit bookings { id status createdAt ticketType { id } } } } }
}`;

async function statementsOf(limit: number, status?: BookingStatus) {
  await app.client.graphql(key, '{ events(limit: 1) { total } }');
  app.sql.reset();
  const response = await app.client.graphql(key, QUERY, { limit, status });
  const statements = app.sql.statements.filter((statement) => !/\bapi_keys\b/.test(statement));
  return { response, statements };
}

test('listing 5 or 40 events with their bookings costs the same few statements', async () => {
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
