import type { MikroORM } from '@mikro-orm/postgresql';
import { eventInput } from './factories';
import type { HttpsClient } from './https-client';

export const BOOKING_FIELDS = `id eventId eventSlug quantity attendeeEmail attendeeName status createdAt cancelledAt
  ticketType { id name sold quantity }`;

export const CREATE_BOOKING = `mutation($input: CreateBookingInput!) { createBooking(input: $input) { ${BOOKING_FIELDS} } }`;
export const CANCEL_BOOKING = `mutation($id: ID!) { cancelBooking(id: $id) { ${BOOKING_FIELDS} } }`;
export const LIST_BOOKINGS = `query($eventSlug: String!, $page: Int, $limit: Int, $status: BookingStatus) {
  bookings(eventSlug: $eventSlug, page: $page, limit: $limit, status: $status) { bookings { ${BOOKING_FIELDS} } total page limit }
}`;
export const TICKET_TYPE_FIELDS = 'id name price currency quantity sold';
export const ADD_TICKET_TYPE = `mutation($eventSlug: String!, $input: TicketTypeInput!) {
  addTicketType(eventSlug: $eventSlug, input: $input) { ${TICKET_TYPE_FIELDS} }
}`;
export const UPDATE_TICKET_TYPE = `mutation($id: ID!, $input: TicketTypeUpdateInput!) {
  updateTicketType(id: $id, input: $input) { ${TICKET_TYPE_FIELDS} }
}`;
export const REMOVE_TICKET_TYPE = `mutation($id: ID!) { removeTicketType(id: $id) { ${TICKET_TYPE_FIELDS} } }`;

export interface CreatedEvent {
  slug: string;
  id: string;
  ticketTypes: Array<{ id: string; name: string; quantity: number; sold: number; price: number; currency: string }>;
}

/** An event made through REST, then PUBLISHED (bookings need it), with the given fields. */
export async function createPublishedEvent(
  client: HttpsClient,
  key: string,
  overrides: Record<string, unknown> = {},
): Promise<CreatedEvent> {
  const created = await client.rest('POST', '/v1/events', key, eventInput(overrides));
  if (created.status !== 201) throw new Error(`create event: ${created.status} ${created.text}`);
  const published = await client.rest('PUT', `/v1/events/${created.body.slug}`, key, { status: 'PUBLISHED' });
  if (published.status !== 200) throw new Error(`publish event: ${published.status} ${published.text}`);
  return published.body as CreatedEvent;
}

export function bookingInput(eventSlug: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { eventSlug, quantity: 1, attendeeEmail: 'ada@example.com', attendeeName: 'Ada Lovelace', ...overrides };
}

export const ticket = (overrides: Record<string, unknown> = {}) => ({
  name: 'General admission',
  price: 25,
  currency: 'EUR',
  quantity: 100,
  ...overrides,
});

export interface StoredCounts {
  registrationCount: number;
  confirmedQuantity: number;
  confirmedBookings: number;
  ticketTypes: Array<{ id: string; sold: number; quantity: number; confirmedQuantity: number }>;
}

/** What the event row stores next to what the bookings table says it should be. */
export async function storedCounts(orm: MikroORM, eventId: string): Promise<StoredCounts> {
  const connection = orm.em.fork().getConnection();
  const [event] = await connection.execute<Array<{ registration_count: number }>>(
    'select registration_count from events where id = ?',
    [eventId],
  );
  const [bookings] = await connection.execute<Array<{ quantity: string; count: string }>>(
    "select coalesce(sum(quantity), 0) as quantity, count(*) as count from bookings where event_id = ? and status = 'CONFIRMED'",
    [eventId],
  );
  const ticketTypes = await connection.execute<Array<{ id: string; sold: number; quantity: number; confirmed: string }>>(
    `select t.id, t.sold, t.quantity, coalesce(sum(b.quantity) filter (where b.status = 'CONFIRMED'), 0) as confirmed
       from ticket_types t left join bookings b on b.ticket_type_id = t.id
      where t.event_id = ? group by t.id order by t.created_at, t.id`,
    [eventId],
  );
  return {
    registrationCount: event.registration_count,
    confirmedQuantity: Number(bookings.quantity),
    confirmedBookings: Number(bookings.count),
    ticketTypes: ticketTypes.map((row) => ({
      id: row.id,
      sold: row.sold,
      quantity: row.quantity,
      confirmedQuantity: Number(row.confirmed),
    })),
  };
}

/** Stored counts agree with the bookings table. */
export function expectConsistent(counts: StoredCounts): void {
  expect(counts.registrationCount).toBe(counts.confirmedQuantity);
  for (const ticketType of counts.ticketTypes) expect(ticketType.sold).toBe(ticketType.confirmedQuantity);
}
