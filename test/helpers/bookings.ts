import type { MikroORM } from '@mikro-orm/postgresql';
import { registrationCountSql, soldSql, storedHeldSql, storedTypeHeldSql } from '../../src/modules/inventory/inventory.repository';
import { eventInput } from './factories';
import type { HttpsClient } from './https-client';

export const BOOKING_FIELDS = `id eventId eventSlug quantity attendeeEmail attendeeName status createdAt cancelledAt expiresAt confirmedAt checkedInAt
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

/** `count` bookings at once, spread over `clients` (server instances), with `input(index)` each. */
export function bookConcurrently(clients: HttpsClient[], key: string, count: number, input: (index: number) => Record<string, unknown>) {
  return Promise.all(
    Array.from({ length: count }, (_, index) => clients[index % clients.length].graphql(key, CREATE_BOOKING, { input: input(index) })),
  );
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
  /** Held seats as stored (the row's and the slots'), and the HELD bookings' seats. */
  held: number;
  heldQuantity: number;
  /** held / heldQuantity only where the type has holds (so that tests without holds compare as before). */
  ticketTypes: Array<{ id: string; sold: number; quantity: number; confirmedQuantity: number; held?: number; heldQuantity?: number }>;
  /** Inventory slots (src/modules/inventory/): what each holds against what its bookings say. */
  slots: {
    count: number;
    /** The shares add up to what is left: capacity − the row's count (null without a capacity or slots). */
    sharesLeft: number | null;
    capacityLeft: number | null;
    /** Slots whose `taken` differs from their confirmed and held bookings' seats, or `held` from the held ones. */
    mismatched: string[];
  };
}

/** What the event stores (its row and its slots, as clients read them) next to what the bookings table says. */
export async function storedCounts(orm: MikroORM, eventId: string): Promise<StoredCounts> {
  const connection = orm.em.fork().getConnection();
  const [event] = await connection.execute<Array<{ registration_count: number; base: number; held: number; base_held: number; capacity: number | null; slots: number }>>(
    `select ${registrationCountSql('e')} as registration_count, e.registration_count as base, ${storedHeldSql('e')} as held, e.held_count as base_held,
            e.capacity, e.slots from events e where id = ?`,
    [eventId],
  );
  const [bookings] = await connection.execute<Array<{ quantity: string; count: string; held: string }>>(
    `select coalesce(sum(quantity) filter (where status = 'CONFIRMED'), 0) as quantity, count(*) filter (where status = 'CONFIRMED') as count,
            coalesce(sum(quantity) filter (where status = 'HELD'), 0) as held
       from bookings where event_id = ?`,
    [eventId],
  );
  const ticketTypes = await connection.execute<Array<{ id: string; sold: number; held: number; quantity: number; confirmed: string; held_booked: string }>>(
    `select t.id, ${soldSql('t')} as sold, ${storedTypeHeldSql('t')} as held, t.quantity,
            coalesce(sum(b.quantity) filter (where b.status = 'CONFIRMED'), 0) as confirmed,
            coalesce(sum(b.quantity) filter (where b.status = 'HELD'), 0) as held_booked
       from ticket_types t left join bookings b on b.ticket_type_id = t.id
      where t.event_id = ? group by t.organization_id, t.id order by t.created_at, t.id`,
    [eventId],
  );
  // A slot's taken counts its confirmed and held seats, its held the held ones.
  const slotRows = await connection.execute<Array<{ pool: string; slot: number; seats: number | null; taken: number; held: number; booked: string; held_booked: string }>>(
    `select 'event' as pool, s.slot, s.seats, s.taken, s.held,
            (select coalesce(sum(b.quantity), 0) from bookings b where b.event_id = s.event_id and b.slot = s.slot and b.status in ('CONFIRMED', 'HELD')) as booked,
            (select coalesce(sum(b.quantity), 0) from bookings b where b.event_id = s.event_id and b.slot = s.slot and b.status = 'HELD') as held_booked
       from event_slots s where s.event_id = ?
     union all
     select u.ticket_type_id, u.slot, u.seats, u.taken, u.held,
            (select coalesce(sum(b.quantity), 0) from bookings b where b.ticket_type_id = u.ticket_type_id and b.slot = u.slot and b.status in ('CONFIRMED', 'HELD')),
            (select coalesce(sum(b.quantity), 0) from bookings b where b.ticket_type_id = u.ticket_type_id and b.slot = u.slot and b.status = 'HELD')
       from ticket_type_slots u join ticket_types t on t.id = u.ticket_type_id where t.event_id = ?`,
    [eventId, eventId],
  );
  const eventSlots = slotRows.filter((row) => row.pool === 'event');
  return {
    registrationCount: event.registration_count,
    confirmedQuantity: Number(bookings.quantity),
    confirmedBookings: Number(bookings.count),
    held: event.held,
    heldQuantity: Number(bookings.held),
    ticketTypes: ticketTypes.map((row) => ({
      id: row.id,
      sold: row.sold,
      quantity: row.quantity,
      confirmedQuantity: Number(row.confirmed),
      ...(row.held === 0 && Number(row.held_booked) === 0 ? {} : { held: row.held, heldQuantity: Number(row.held_booked) }),
    })),
    slots: {
      count: event.slots,
      sharesLeft: event.slots > 0 && event.capacity !== null ? eventSlots.reduce((sum, row) => sum + (row.seats ?? 0), 0) : null,
      capacityLeft: event.slots > 0 && event.capacity !== null ? event.capacity - event.base - event.base_held : null,
      mismatched: slotRows
        .filter((row) => row.taken !== Number(row.booked) || row.held !== Number(row.held_booked))
        .map((row) => `${row.pool}#${row.slot}: ${row.taken} taken (${row.held} held), ${row.booked} booked (${row.held_booked} held)`),
    },
  };
}

/** Stored counts agree with the bookings table, and a slotted event's slots with their bookings and shares. */
export function expectConsistent(counts: StoredCounts): void {
  expect(counts.registrationCount).toBe(counts.confirmedQuantity);
  expect(counts.held).toBe(counts.heldQuantity);
  for (const ticketType of counts.ticketTypes) {
    expect(ticketType.sold).toBe(ticketType.confirmedQuantity);
    expect(ticketType.held ?? 0).toBe(ticketType.heldQuantity ?? 0);
  }
  expect(counts.slots.mismatched).toEqual([]);
  expect(counts.slots.sharesLeft).toBe(counts.slots.capacityLeft);
}
