import type { EntityManager } from '@mikro-orm/postgresql';
import { statementText } from '../../platform/db/prepared-statements';
import {
  BOOKING_COLUMNS,
  columnsOf,
  EVENT_COLUMNS,
  bookingParts,
  BOOKED_STATUS,
  type BookingChange,
  type BookingRequest,
} from './booking-statement';
import { runBooking } from './booking.repository';

/*
 * The booking statements of slotted events (src/modules/inventory/): a booking claims one slot of the
 * event instead of locking its row. The rule every booking statement follows: booking.repository.ts.
 */

/**
 * The slot a booking of a slotted event claims: of the open slots whose share (and, with a ticket
 * type, whose ticket type slot of the same number) can take the seats, the first from a random start
 * that no other booking holds (SKIP LOCKED); or, when every such slot is held, the first of them,
 * waiting for that one slot only (PostgreSQL runs the second branch only when the first found nothing:
 * UNION ALL under LIMIT). Waiting for exactly one row matters: a row lock is kept to the end of the
 * transaction even when the row fails the recheck after the wait, so a scan that moved on to the next
 * slot could hold several, out of slot order, and deadlock with a booking that locks them all in
 * order (bookSlottedSlowly). The claimed slot is checked again under its lock (`ok`).
 * Bindings of each: quantity, ticket type, quantity, start.
 */
const SLOTS_WITH_ROOM = `from event_slots s join e on s.event_id = e.id
        where s.open and (s.seats is null or s.taken + ?::int <= s.seats)
          and (?::text is null or exists (
                select 1 from ticket_type_slots u join tt on u.ticket_type_id = tt.id
                 where u.slot = s.slot and u.taken + ?::int <= u.seats))
        order by (s.slot + e.slots - ?::int % e.slots) % e.slots`;
const CLAIM_FREE_SLOT = `select * from (select s.* ${SLOTS_WITH_ROOM} limit 1 for update of s skip locked) free`;
const CLAIM_HELD_SLOT = `select * from (
       select h.* from event_slots h join e on h.event_id = e.id
        where h.slot = (select s.slot ${SLOTS_WITH_ROOM} limit 1)
        for update of h) held`;

/**
 * Books a slotted event in one statement, without locking the event's or the ticket type's row: claims
 * a slot (CLAIM_FREE_SLOT / CLAIM_HELD_SLOT, from slot `start`), then the ticket type's slot of the same number, and only if
 * the event is PUBLISHED and not ended and both slots can take the seats, adds them to both slots'
 * counts, inserts the booking (with its slot) and its `booking.created` message. Refuses (no change)
 * when no single slot can take them, or the slots are closed: the caller then looks at every slot.
 */
export async function bookSlotted(em: EntityManager, request: BookingRequest, start: number): Promise<BookingChange> {
  const { organizationId, fields, answers, idempotency } = request;
  const { eventSlug, ticketTypeId, quantity, createdAt } = fields;
  const parts = bookingParts(request);
  const { outbox, heldSeats: held } = parts;
  const sql = statementText(`bookSlotted${parts.variant}`, () => `with ${parts.claim}
     e as (select id, slug, status, end_date, capacity, registration_count, held_count, slots from events where organization_id = ? and slug = ?),
     tt as (select t.id, t.quantity from ticket_types t join e on t.event_id = e.id where t.id = ?::text),
     es as (${CLAIM_FREE_SLOT} union all ${CLAIM_HELD_SLOT} limit 1),
     ts as (select u.* from ticket_type_slots u join es on u.slot = es.slot join tt on u.ticket_type_id = tt.id for update of u),
     ok as (
       select es.event_id, es.slot, es.taken, es.held, ts.taken as type_taken, ts.held as type_held from es join e on true left join ts on true
        where es.open and e.status = 'PUBLISHED' and e.end_date > ?::timestamptz
          and (es.seats is null or es.taken + ?::int <= es.seats)
          and (?::text is null or ts.taken + ?::int <= ts.seats) ${parts.gate}),
     -- A slot's taken counts held seats too (its room stays seats - taken); held counts those alone.
     ues as (update event_slots x set taken = ok.taken + ?::int, held = ok.held + ?::int from ok where x.event_id = ok.event_id and x.slot = ok.slot),
     uts as (update ticket_type_slots y set taken = ok.type_taken + ?::int, held = ok.type_held + ?::int from ok where y.ticket_type_id = ?::text and y.slot = ok.slot),
     b as (
       insert into bookings (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at, expires_at, ticket_code_hash, ticket_code_sealed, slot)
       select ?::text, ?::text, ok.event_id, ?::text, ?::int, ?::text, ?::text, ${BOOKED_STATUS}, ?::timestamptz, ?::timestamptz, ?::text, ?::text, ok.slot from ok
       returning *),
     ${parts.point}
     ${outbox.sql}
   select ${columnsOf('e', 'e', EVENT_COLUMNS)}, tt.id as "t.id", tt.quantity as "t.quantity", ${columnsOf('b', 'b', BOOKING_COLUMNS)},
          e.id as "probe.id", e.slots as "probe.slots", exists (select 1 from outbox_message) as outbox_written, ${parts.held} as claim_held,
          -- Refused: what is left in all of the event's and the ticket type's slots, as this statement saw them.
          case when b.id is null then (select case when bool_or(s.seats is null) then null else sum(s.seats - s.taken)::int end
                                         from event_slots s where s.event_id = e.id) end as "room.event",
          case when b.id is null then (select sum(u.seats - u.taken)::int from ticket_type_slots u where u.ticket_type_id = tt.id) end as "room.ticketType",
          case when b.id is null then (select sum(s.held)::int from event_slots s where s.event_id = e.id) end as "room.held"
     from (select 1) one left join e on true left join tt on true left join b on true`);
  const claim = [quantity, ticketTypeId, quantity, start];
  return runBooking(em, sql, idempotency, answers, [
    ...parts.claimBindings,
    organizationId, eventSlug,
    ticketTypeId,
    ...claim, ...claim,
    createdAt, quantity, ticketTypeId, quantity,
    quantity, held,
    quantity, held, ticketTypeId,
    ...parts.insert,
    ...parts.pointBindings,
    ...outbox.bindings,
  ]);
}
