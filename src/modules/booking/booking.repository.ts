import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { EventEntity } from '../event/event.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { noteOutboxWrite, outboxCtes } from '../../platform/outbox/outbox';
import { BookingEntity, BookingStatus } from './booking.entity';

/*
 * The only place that reaches the bookings table through the ORM (the batched pages of Event.bookings
 * are in booking-pages.loader.ts). The organization comes first: another organization's booking is
 * simply not found (D1).
 */

// ---- Read side ---------------------------------------------------------------------------------

/** The organization's booking `id`, or BOOKING_NOT_FOUND (another organization's included). */
export async function findById(em: EntityManager, organizationId: string, id: string): Promise<BookingEntity> {
  const booking = await em.findOne(BookingEntity, { id, organization: organizationId });
  if (!booking) throw AppError.bookingNotFound(id);
  return booking;
}

// ---- Write side --------------------------------------------------------------------------------

/*
 * A booking and a cancellation are each ONE statement (issue 19): the event's row lock, then the
 * ticket type's, the rules of booking.policy.ts as the guards of the updates (status, end, capacity,
 * quantity), the counts, the booking row and the outbox message commit together, and no round trip
 * to the service happens while a lock is held. The statement always answers one row: the change, or
 * what it found, from which the command works out the refusal (only on that path).
 */

const EVENT_COLUMNS = [
  'id', 'organization_id', 'slug', 'title', 'description', 'start_date', 'end_date', 'timezone', 'venue',
  'venue_address', 'cover_image', 'status', 'capacity', 'registration_count', 'created_at', 'updated_at',
] as const;
const TICKET_TYPE_COLUMNS = ['id', 'event_id', 'name', 'price', 'currency', 'quantity', 'sold', 'created_at'] as const;
const BOOKING_COLUMNS = [
  'id', 'organization_id', 'event_id', 'ticket_type_id', 'quantity', 'attendee_email', 'attendee_name', 'status',
  'created_at', 'cancelled_at',
] as const;

/** `alias.column as "prefix.column", …`: one row carries several tables' rows apart. */
const columnsOf = (alias: string, prefix: string, columns: readonly string[]) =>
  columns.map((column) => `${alias}.${column} as "${prefix}.${column}"`).join(', ');

/** The row of table `prefix` out of a statement's answer, or null when it has none. */
function rowOf(answer: Record<string, unknown>, prefix: string, columns: readonly string[]): Record<string, unknown> | null {
  if (answer[`${prefix}.id`] == null) return null;
  const row: Record<string, unknown> = {};
  for (const column of columns) row[column] = answer[`${prefix}.${column}`];
  return row;
}

/** What a booking or cancellation statement found or changed, as managed entities (no further query renders them). */
export interface BookingChange {
  /** Whether the statement made its change (false: it refused, and the rows are what it found). */
  readonly changed: boolean;
  /** The booking made or cancelled (or, when a cancellation refused, as found); null when there is none. */
  readonly booking: BookingEntity | null;
  /** The event as the statement left it (or found it, on refusal); null when there is none. */
  readonly event: EventEntity | null;
  /** The ticket type as the statement left it (or found it); null without one. */
  readonly ticketType: TicketTypeEntity | null;
}

function changeOf(em: EntityManager, answer: Record<string, unknown>, changed: boolean): BookingChange {
  if (changed) {
    // The rows as the statement left them: the counts and the event's updatedAt changed.
    answer['e.registration_count'] = answer['changed.registration_count'];
    answer['e.updated_at'] = answer['changed.updated_at'];
    if (answer['t.id'] != null) answer['t.sold'] = answer['changed.sold'];
  }
  const event = rowOf(answer, 'e', EVENT_COLUMNS);
  const ticketType = rowOf(answer, 't', TICKET_TYPE_COLUMNS);
  const booking = rowOf(answer, 'b', BOOKING_COLUMNS);
  if (answer.outbox_written === true) noteOutboxWrite(em);
  return {
    changed,
    event: event ? em.map(EventEntity, event) : null,
    ticketType: ticketType ? em.map(TicketTypeEntity, ticketType) : null,
    booking: booking ? em.map(BookingEntity, booking) : null,
  };
}

export interface NewBooking {
  readonly id: string;
  readonly eventSlug: string;
  readonly ticketTypeId: string | null;
  readonly quantity: number;
  readonly attendeeEmail: string;
  readonly attendeeName: string;
  readonly createdAt: Date;
}

/**
 * Books in one statement: locks the organization's event `eventSlug`, then its ticket type, and only
 * if the event is bookable (PUBLISHED and not ended) and both the capacity and the type's quantity
 * can take the seats, adds them to both counts, inserts the booking and its `booking.created` message.
 * `webhookData` is the message's data with hole() for the event's id (filled in by the statement).
 */
export async function bookSeats(em: EntityManager, organizationId: string, fields: NewBooking, webhookData: object): Promise<BookingChange> {
  const { id, eventSlug, ticketTypeId, quantity, attendeeEmail, attendeeName, createdAt } = fields;
  const outbox = outboxCtes(organizationId, 'booking.created', 'b', webhookData, ['to_json(g.event_id)::text']);
  const sql = `with
     e as (select * from events where organization_id = ? and slug = ? for update),
     t as (select t.* from ticket_types t join e on t.event_id = e.id where t.id = ? for update of t),
     ok as (
       select e.id from e left join t on true
        where e.status = 'PUBLISHED' and e.end_date > ?
          and (e.capacity is null or e.registration_count + ? <= e.capacity)
          and (?::text is null or t.sold + ? <= t.quantity)),
     ue as (
       update events x set registration_count = x.registration_count + ?, updated_at = ?
         from ok where x.id = ok.id returning x.registration_count, x.updated_at),
     ut as (update ticket_types y set sold = y.sold + ? from ok where y.id = ? returning y.sold),
     b as (
       insert into bookings (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at)
       select ?, ?, ok.id, ?, ?, ?, ?, 'CONFIRMED', ? from ok
       returning *),
     ${outbox.sql}
   select ${columnsOf('e', 'e', EVENT_COLUMNS)}, ${columnsOf('t', 't', TICKET_TYPE_COLUMNS)}, ${columnsOf('b', 'b', BOOKING_COLUMNS)},
          ue.registration_count as "changed.registration_count", ue.updated_at as "changed.updated_at", ut.sold as "changed.sold",
          exists (select 1 from outbox_message) as outbox_written
     from (select 1) one left join e on true left join t on true left join b on true left join ue on true left join ut on true`;
  const [answer] = await em.execute<Array<Record<string, unknown>>>(sql, [
    organizationId, eventSlug,
    ticketTypeId,
    createdAt, quantity, ticketTypeId, quantity,
    quantity, createdAt,
    quantity, ticketTypeId,
    id, organizationId, ticketTypeId, quantity, attendeeEmail, attendeeName, createdAt,
    ...outbox.bindings,
  ]);
  return changeOf(em, answer, answer['b.id'] != null);
}

/**
 * Cancels in one statement: locks the booking's event, then the booking, then its ticket type, and
 * only if the booking is still CONFIRMED marks it CANCELLED at `cancelledAt`, gives its seats back to
 * both counts and inserts its `booking.cancelled` message (`webhookData`, with hole() for the event's
 * slug, read under the lock).
 */
export async function cancelSeats(
  em: EntityManager,
  organizationId: string,
  booking: { id: string; eventId: string },
  cancelledAt: Date,
  webhookData: object,
): Promise<BookingChange> {
  const outbox = outboxCtes(organizationId, 'booking.cancelled', 'ub', webhookData, ['to_json(g.event_slug)::text']);
  const sql = `with
     e as (select * from events where id = ? and organization_id = ? for update),
     b as (select k.* from bookings k join e on k.event_id = e.id where k.id = ? for update of k),
     t as (select t.* from ticket_types t join b on t.id = b.ticket_type_id for update of t),
     ok as (select b.id, b.quantity, b.ticket_type_id, e.slug from b join e on true where b.status = 'CONFIRMED'),
     ub as (
       update bookings k set status = 'CANCELLED', cancelled_at = ?
         from ok where k.id = ok.id returning k.*, ok.slug as event_slug),
     ue as (
       update events x set registration_count = x.registration_count - ok.quantity, updated_at = ?
         from ok join e on true where x.id = e.id returning x.registration_count, x.updated_at),
     ut as (update ticket_types y set sold = y.sold - ok.quantity from ok where y.id = ok.ticket_type_id returning y.sold),
     ${outbox.sql}
   select ${columnsOf('e', 'e', EVENT_COLUMNS)}, ${columnsOf('t', 't', TICKET_TYPE_COLUMNS)}, ${columnsOf('coalesce_b', 'b', BOOKING_COLUMNS)},
          ue.registration_count as "changed.registration_count", ue.updated_at as "changed.updated_at", ut.sold as "changed.sold",
          ub.id is not null as cancelled,
          exists (select 1 from outbox_message) as outbox_written
     from (select 1) one left join e on true left join t on true
          left join b on true left join ub on true left join ue on true left join ut on true
          left join lateral (select ub.id, ub.organization_id, ub.event_id, ub.ticket_type_id, ub.quantity, ub.attendee_email,
                                    ub.attendee_name, ub.status, ub.created_at, ub.cancelled_at where ub.id is not null
                             union all
                             select b.id, b.organization_id, b.event_id, b.ticket_type_id, b.quantity, b.attendee_email,
                                    b.attendee_name, b.status, b.created_at, b.cancelled_at where ub.id is null) coalesce_b on true`;
  const [answer] = await em.execute<Array<Record<string, unknown>>>(sql, [
    booking.eventId, organizationId,
    booking.id,
    cancelledAt,
    cancelledAt,
    ...outbox.bindings,
  ]);
  return changeOf(em, answer, answer.cancelled === true);
}

/** Confirmed bookings of an event (D3: an event with any cannot be deleted). */
export async function countConfirmed(em: EntityManager, event: EventEntity): Promise<number> {
  return em.count(BookingEntity, { event, status: BookingStatus.CONFIRMED });
}
