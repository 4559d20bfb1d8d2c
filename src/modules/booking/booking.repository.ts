import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import type { EventEntity } from '../event/event.entity';
import { executePrepared, statementText } from '../../platform/db/prepared-statements';
import type { RecoveryPointCtes } from '../../platform/db/unit-of-work-scope';
import { BookingEntity, BookingStatus } from './booking.entity';
import {
  BOOKING_COLUMNS,
  columnsOf,
  EVENT_COLUMNS,
  bookingParts,
  changeOf,
  BOOKED_STATUS,
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
 * A rule of every booking statement (these, slotted-booking.repository.ts, booking-transitions and
 * check-in): a row that a CTE locked (FOR UPDATE / FOR NO KEY UPDATE) is changed from the values that
 * CTE returned (`ok.registration_count + q`), never from the target's own column
 * (`x.registration_count + q`). PostgreSQL re-reads a locked row that changed while the lock waited, so
 * the CTE sees the latest version; an UPDATE of that same row in the same statement, though, computes
 * from the version its snapshot saw when the newer one is locked by this very statement: a concurrent
 * cancellation then let a booking past the capacity (found by test/bookings-processes.test.ts,
 * reproduced with pgbench; the CHECK constraints caught it as a 500). What the statements share
 * (answer columns, the answer as a BookingChange): booking-statement.ts.
 */

/** Runs a booking statement: the change, or what it found; a lost Idempotency-Key claim is refused. */
export async function runBooking(
  em: EntityManager,
  sql: string,
  idempotency: RecoveryPointCtes | undefined,
  answers: EntityManager,
  bindings: unknown[],
): Promise<BookingChange> {
  const [answer] = await executePrepared<Record<string, unknown>>(em, sql, bindings);
  if (answer.claim_held === false) idempotency!.lost();
  return changeOf(em, answer, answer['b.id'] != null, answers);
}

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
  const parts = bookingParts(request);
  const { outbox } = parts;
  const sql = statementText(`bookSeats${parts.variant}`, () => `with ${parts.claim}
     probe as (select id, slots from events where organization_id = ? and slug = ?),
     e as (select * from events where organization_id = ? and slug = ? and slots = 0 for no key update),
     t as (select t.* from ticket_types t join e on t.event_id = e.id where t.id = ?::text for update of t),
     ok as (
       select e.id, e.registration_count, e.held_count, t.sold, t.held from e left join t on true
        where e.status = 'PUBLISHED' and e.end_date > ?::timestamptz
          and (e.capacity is null or e.registration_count + e.held_count + ?::int <= e.capacity)
          and (?::text is null or t.sold + t.held + ?::int <= t.quantity) ${parts.gate}),
     ue as (
       update events x set registration_count = ok.registration_count + ?::int, held_count = ok.held_count + ?::int, updated_at = ?::timestamptz
         from ok where x.id = ok.id),
     ut as (update ticket_types y set sold = ok.sold + ?::int, held = ok.held + ?::int from ok where y.id = ?::text),
     b as (
       insert into bookings (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at, expires_at, ticket_code_hash, ticket_code_sealed)
       select ?::text, ?::text, ok.id, ?::text, ?::int, ?::text, ?::text, ${BOOKED_STATUS}, ?::timestamptz, ?::timestamptz, ?::text, ?::text from ok
       returning *),
     ${parts.point}
     ${outbox.sql}
   select ${columnsOf('e', 'e', EVENT_COLUMNS)}, ${columnsOf('t', 't', TICKET_TYPE_COLUMNS)}, ${columnsOf('b', 'b', BOOKING_COLUMNS)},
          probe.id as "probe.id", probe.slots as "probe.slots", exists (select 1 from outbox_message) as outbox_written, ${parts.held} as claim_held
     from (select 1) one left join probe on true left join e on true left join t on true left join b on true`);
  return runBooking(em, sql, idempotency, answers, [
    ...parts.claimBindings,
    organizationId, eventSlug,
    organizationId, eventSlug,
    ticketTypeId,
    createdAt, quantity, ticketTypeId, quantity,
    parts.confirmed, parts.heldSeats, createdAt,
    parts.confirmed, parts.heldSeats, ticketTypeId,
    ...parts.insert,
    ...parts.pointBindings,
    ...outbox.bindings,
  ]);
}

/** Confirmed bookings of an event (D3: an event with any cannot be deleted). */
export async function countConfirmed(em: EntityManager, event: EventEntity): Promise<number> {
  return em.count(BookingEntity, { event, status: BookingStatus.CONFIRMED });
}
