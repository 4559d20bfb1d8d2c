import { CREATE_BOOKING, bookingInput } from './bookings';
import { createMemberWithPassword } from './dashboard';
import { createApiKey, createOrganization, eventInput } from './factories';
import type { TestApp } from './test-app';

// The organization the dashboard's events pages are tested on (test/dashboard-events-browser.test.ts,
// test/dashboard-tickets-browser.test.ts), made through the API as a key would.
export const PASSWORD = 'a long enough password';
const DAY = 86_400_000;

/** yyyy-mm-dd of the day `offset` days from now, in this process's (and the browser's) time zone. */
export function day(offset: number): string {
  const date = new Date(Date.now() + offset * DAY);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** A create body for an event starting `days` from now, three hours long. */
export function startingIn(days: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = new Date(Date.now() + days * DAY);
  start.setUTCSeconds(0, 0);
  return eventInput({ startDate: start.toISOString(), endDate: new Date(start.getTime() + 3 * 3_600_000).toISOString(), ...overrides });
}

export interface Seeded {
  organizationId: string;
  key: string;
  admin: { email: string; name: string };
  member: { email: string; name: string };
  jazz: { slug: string; ticketTypes: Array<{ id: string; name: string }> };
  /** The second jazz night: published, the same two ticket types, no bookings. */
  second: { slug: string; ticketTypes: Array<{ id: string; name: string }> };
  /** The bookings of the jazz night by attendee name. */
  bookings: Map<string, string>;
}

/**
 * An organization with an ADMIN, a MEMBER, a key and 25 events: 22 talks, a published jazz night with
 * two ticket types and 22 bookings (21 confirmed, the newest one held), a draft jazz brunch and a
 * second jazz night.
 */
export async function seedEvents(app: TestApp, name: string): Promise<Seeded> {
  const organization = await createOrganization(app.orm, { name });
  const admin = await createMemberWithPassword(app.orm, organization.id, 'admin', PASSWORD);
  const member = await createMemberWithPassword(app.orm, organization.id, 'member', PASSWORD);
  const { key } = await createApiKey(app.orm, organization.id);
  const create = async (body: Record<string, unknown>, publish: boolean) => {
    const created = await app.client.rest('POST', '/v1/events', key, body);
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    if (!publish) return created.body;
    const published = await app.client.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' });
    if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
    return published.body;
  };
  const tickets = [
    { name: 'Standing', price: 20, currency: 'EUR', quantity: 20 },
    { name: 'Seated', price: 35, currency: 'EUR', quantity: 12 },
  ];
  const jazz = await create(startingIn(60, { title: 'Jazz night', capacity: 40, venue: 'Blue Room', venueAddress: '1 Quay Street', timezone: 'Europe/Paris', ticketTypes: tickets }), true);
  await create(startingIn(10, { title: 'Jazz brunch' }), false);
  const second = await create(startingIn(90, { title: 'Jazz night (second date)', capacity: 40, ticketTypes: tickets }), true);
  for (let index = 1; index <= 22; index += 1) await create(startingIn(30, { title: `Talk ${String(index).padStart(2, '0')}` }), index % 2 === 0);
  const bookings = new Map<string, string>();
  for (let index = 1; index <= 22; index += 1) {
    const attendeeName = index === 22 ? 'Holder Hal' : `Guest ${String(index).padStart(2, '0')}`;
    const ticketTypeId = jazz.ticketTypes[index % 2].id;
    bookings.set(attendeeName, await book(app, key, jazz.slug, attendeeName, { ticketTypeId, attendeeEmail: `guest${index}@example.com`, hold: index === 22 }));
  }
  return { organizationId: organization.id, key, admin, member, jazz, second, bookings };
}

/** A booking made with the key; its id. */
export async function book(app: TestApp, key: string, eventSlug: string, attendeeName: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const input = bookingInput(eventSlug, { attendeeName, attendeeEmail: 'someone@example.com', ...overrides });
  const booked = await app.client.graphql(key, CREATE_BOOKING, { input });
  if (booked.body.errors) throw new Error(JSON.stringify(booked.body.errors));
  return booked.body.data.createBooking.id;
}

/** A booking's row as stored. */
export async function storedBooking(app: TestApp, id: string): Promise<{ status: string; checked_in_at: Date | null }> {
  const [row] = await app.orm.em.fork().getConnection().execute('select status, checked_in_at from bookings where id = ?', [id]);
  return row as { status: string; checked_in_at: Date | null };
}

/** A booking's ticket code, read with the key (bookings:read). */
export async function codeOf(app: TestApp, key: string, id: string): Promise<string> {
  const answer = await app.client.graphql(key, 'query($id: ID!) { booking(id: $id) { ticketCode } }', { id });
  if (answer.body.errors) throw new Error(JSON.stringify(answer.body.errors));
  return answer.body.data.booking.ticketCode;
}
