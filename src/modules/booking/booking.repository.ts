import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import type { EventEntity } from '../event/event.entity';
import { outboxCtes } from '../../platform/outbox/outbox';
import { executePrepared, statementText } from '../../platform/db/prepared-reads';
import { BookingEntity, BookingStatus } from './booking.entity';
import {
  BOOKING_COLUMNS,
  CANCELLED_OR_FOUND,
  changeOf,
  columnsOf,
  EVENT_COLUMNS,
  bookingParts,
  insertBindings,
  runBooking,
  TICKET_TYPE_COLUMNS,
  type BookingChange,
  type BookingRequest,
} from './booking-statement';

export type { BookingChange, NewBooking } from './booking-statement';

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

// ---- Write side: events that keep their count on their row (slotted ones: slotted-booking.repository.ts)

/*
 * The rules of every booking statement: booking-statement.ts.
 */

/**
 * Books an event that keeps its counts on its row (not slotted) in one statement: locks the
 * organization's event `eventSlug`, then its ticket type, and only if the event is bookable (PUBLISHED
 * and not ended) and both the capacity and the type's quantity can take the seats, adds them to both
 * counts, inserts the booking and its `booking.created` message. `webhookData` is the message's data
 * with hole() for the event's id (filled in by the statement). A slotted event is left alone, its row
 * not even locked (`slots` tells the caller).
 */
export async function bookSeats(em: EntityManager, request: BookingRequest): Promise<BookingChange> {
  const { organizationId, fields, answers, idempotency } = request;
  const { eventSlug, ticketTypeId, quantity, createdAt } = fields;
  const { outbox, idem, variant } = bookingParts(request);
  const sql = statementText(`bookSeats${variant}`, () => `with ${idem.claim}
     probe as (select id, slots from events where organization_id = ? and slug = ?),
     e as (select * from events where organization_id = ? and slug = ? and slots = 0 for no key update),
     t as (select t.* from ticket_types t join e on t.event_id = e.id where t.id = ?::text for update of t),
     ok as (
       select e.id, e.registration_count, t.sold from e left join t on true
        where e.status = 'PUBLISHED' and e.end_date > ?::timestamptz
          and (e.capacity is null or e.registration_count + ?::int <= e.capacity)
          and (?::text is null or t.sold + ?::int <= t.quantity) ${idem.gate}),
     ue as (
       update events x set registration_count = ok.registration_count + ?::int, updated_at = ?::timestamptz
         from ok where x.id = ok.id),
     ut as (update ticket_types y set sold = ok.sold + ?::int from ok where y.id = ?::text),
     b as (
       insert into bookings (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at)
       select ?::text, ?::text, ok.id, ?::text, ?::int, ?::text, ?::text, 'CONFIRMED', ?::timestamptz from ok
       returning *),
     ${idem.point}
     ${outbox.sql}
   select ${columnsOf('e', 'e', EVENT_COLUMNS)}, ${columnsOf('t', 't', TICKET_TYPE_COLUMNS)}, ${columnsOf('b', 'b', BOOKING_COLUMNS)},
          probe.id as "probe.id", probe.slots as "probe.slots", exists (select 1 from outbox_message) as outbox_written, ${idem.held} as claim_held
     from (select 1) one left join probe on true left join e on true left join t on true left join b on true`);
  return runBooking(em, sql, idempotency, answers, [
    ...idem.claimBindings,
    organizationId, eventSlug,
    organizationId, eventSlug,
    ticketTypeId,
    createdAt, quantity, ticketTypeId, quantity,
    quantity, createdAt,
    quantity, ticketTypeId,
    ...insertBindings(organizationId, fields),
    ...idem.pointBindings,
    ...outbox.bindings,
  ]);
}

/**
 * Cancels a booking counted on its event's row (booked while the event was not slotted) in one
 * statement: locks the booking's event, then the booking, then its ticket type, and only if the
 * booking is still CONFIRMED marks it CANCELLED at `cancelledAt`, gives its seats back to both counts
 * and inserts its `booking.cancelled` message (`webhookData`, with hole() for the event's slug, read
 * under the lock).
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
     e as (select * from events where id = ? and organization_id = ? for no key update),
     es as (select s.* from event_slots s join e on s.event_id = e.id where s.slot = 0 for update of s),
     b as (select k.* from bookings k join e on k.event_id = e.id where k.id = ? and k.slot is null for update of k),
     t as (select t.* from ticket_types t join b on t.id = b.ticket_type_id for update of t),
     ts as (select u.* from ticket_type_slots u join t on u.ticket_type_id = t.id where u.slot = 0 for update of u),
     ok as (select b.id, b.quantity, b.ticket_type_id, e.slug from b join e on true where b.status = 'CONFIRMED'),
     -- Booked before the event was slotted: its seats go back to the count on the row, and slot 0's
     -- share grows by as many, so that the shares still add up to what is left.
     ues as (update event_slots x set seats = es.seats + ok.quantity from ok, es where x.event_id = es.event_id and x.slot = 0 and es.seats is not null),
     uts as (update ticket_type_slots y set seats = ts.seats + ok.quantity from ok, ts where y.ticket_type_id = ts.ticket_type_id and y.slot = 0),
     ub as (
       update bookings k set status = 'CANCELLED', cancelled_at = ?::timestamptz
         from ok where k.id = ok.id returning k.*, ok.slug as event_slug),
     ue as (
       update events x set registration_count = e.registration_count - ok.quantity, updated_at = ?::timestamptz
         from ok join e on true where x.id = e.id),
     ut as (update ticket_types y set sold = t.sold - ok.quantity from ok join t on true where y.id = t.id),
     ${outbox.sql}
   select ${columnsOf('e', 'e', EVENT_COLUMNS)}, ${columnsOf('t', 't', TICKET_TYPE_COLUMNS)}, ${columnsOf('coalesce_b', 'b', BOOKING_COLUMNS)},
          ub.id is not null as cancelled,
          exists (select 1 from outbox_message) as outbox_written
     from (select 1) one left join e on true left join t on true
          left join b on true left join ub on true
          ${CANCELLED_OR_FOUND}`;
  const [answer] = await executePrepared<Record<string, unknown>>(em, sql, [
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
