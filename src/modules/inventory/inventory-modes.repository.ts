/*
 * An event's seats in SQL, written once per inventory mode (D7; inventory.policy.ts has the rules):
 * the CTEs that take seats (a booking, a waiting-list offer), give them back (a cancellation, an
 * expiry) or move them from held to confirmed. The booking statements compose them
 * (booking.repository.ts, booking-transitions.repository.ts); a statement that moves a booking's
 * seats to another event composes the same: `lockBooked` and `release` where they are, `reserve`
 * where they go, each in its event's mode (an exchange, D29: exchange.repository.ts).
 *
 *   ROW_SEATS   events.slots = 0, bookings.slot null: the counts are on the event's row
 *               (registration_count, held_count) and its ticket type's row (sold, held)
 *   SLOT_SEATS  events.slots > 0, bookings.slot set: the counts are in one event_slots row (taken,
 *               held: taken counts held seats too) and the ticket type's ticket_type_slots row of the
 *               same number
 *
 * The contract of every builder:
 * - It returns CTEs (comma-separated, no comma after the last), each named `<prefix><name>`; the two
 *   modes' names differ, so one statement carries both under one prefix, and two places (a release
 *   and a reserve) under two prefixes. Values come in as SQL: named parameters (`:quantity::int`) or
 *   columns of earlier CTEs, never a positional `?`.
 * - `reserve` reads the mode with the event: given the events row as the statement read it (a CTE
 *   with id, slots, status, end_date; no lock), the other mode's CTEs find no row and change nothing.
 *   It books only where the event takes bookings and both the event's and the ticket type's limits
 *   hold on the locked rows; `<prefix>row_ok` / `<prefix>slot_ok` then has the place taken (event_id,
 *   slot), else no row.
 * - Locks follow inventory.repository.ts's order: the event's side before a booking's row, the ticket
 *   type's side after it (`lockBooked` places the booking's own lock between them). A locked row is
 *   changed from the values its locking CTE returned, never from the target's own column: an UPDATE
 *   computes from its snapshot's version when this statement locked a newer one (booking.repository.ts).
 * - `release` and `confirm` change the counts of the rows `lockBooked` locked, when the CTE `when` has
 *   a row; their seats are SQL over it.
 * - Two uses in one statement must not change the same row (PostgreSQL applies one of two updates of
 *   a row in one statement): seats moved within one event take two statements. Two events' locks are
 *   taken in an order the composing statement fixes (e.g. by event id), or two such moves could deadlock.
 */

/** Seats to take at an event (`reserve`), as SQL. */
export interface Reservation {
  /** The CTE with the event's row as the statement read it (id, slots, status, end_date), no lock. */
  readonly event: string;
  readonly ticketTypeId: string;
  readonly quantity: string;
  /** Of `quantity`, the seats held (D20): the rest are confirmed. */
  readonly held: string;
  /** The time the seats are taken at: the event must not have ended by then. */
  readonly at: string;
  /** Slotted events: the slot to look from (spreads concurrent bookings over the slots). */
  readonly start: string;
  /** More that the seats are taken on (` and …`, e.g. an Idempotency-Key's claim), or ''. */
  readonly guard: string;
}

/** Where a booking's seats are counted, as SQL; its row is locked as the CTE `booking`. */
export interface Booked {
  readonly id: string;
  readonly organizationId: string;
  readonly eventId: string;
  /** Slotted bookings: their slot. */
  readonly slot: string;
  readonly booking: string;
}

/** Seats given back or confirmed, as SQL terms (a column of the CTE `when`, a parameter); `at` stamps the event's row. */
export interface SeatsChange {
  readonly confirmed: string;
  readonly held: string;
  readonly at: string;
}

export interface InventoryMode {
  /** Finds room for the seats, locks it and takes them (see the contract). */
  reserve(prefix: string, seats: Reservation): string;
  /** Locks where the booking's seats are counted, with the booking's row in between (lock order). */
  lockBooked(prefix: string, booked: Booked): string;
  /** Whether the event of the seats locked by `lockBooked` takes bookings at `at` (a condition). */
  takesBookings(prefix: string, at: string): string;
  /** Gives the seats back. */
  release(prefix: string, when: string, seats: SeatsChange): string;
  /** Moves held seats to confirmed (`seats.confirmed` is not read). */
  confirm(prefix: string, when: string, seats: SeatsChange): string;
}

// ---- ROW_SEATS -------------------------------------------------------------------------------

/**
 * The counts on the locked rows `e` and `t`, changed by `confirmed` and `held` (signed terms: `+ x`,
 * `- x`) when `when` has a row.
 */
const rowCounts = (p: string, when: string, confirmed: string, held: string, at: string) => `${p}ue as (
       update events x set registration_count = ${p}e.registration_count ${confirmed}, held_count = ${p}e.held_count ${held}, updated_at = ${at}
         from ${when} join ${p}e on true where x.id = ${p}e.id),
     ${p}ut as (update ticket_types y set sold = ${p}t.sold ${confirmed}, held = ${p}t.held ${held} from ${when} join ${p}t on true where y.id = ${p}t.id)`;

export const ROW_SEATS: InventoryMode = {
  reserve: (p, seats) => `${p}e as (select x.* from events x join ${seats.event} on x.id = ${seats.event}.id where ${seats.event}.slots = 0 and x.slots = 0 for no key update of x),
     ${p}t as (select y.* from ticket_types y join ${p}e on y.event_id = ${p}e.id where y.id = ${seats.ticketTypeId} for update of y),
     ${p}row_ok as (
       select ${p}e.id as event_id, null::smallint as slot from ${p}e left join ${p}t on true
        where ${p}e.status = 'PUBLISHED' and ${p}e.end_date > ${seats.at}
          and (${p}e.capacity is null or ${p}e.registration_count + ${p}e.held_count + ${seats.quantity} <= ${p}e.capacity)
          and (${seats.ticketTypeId} is null or ${p}t.sold + ${p}t.held + ${seats.quantity} <= ${p}t.quantity)${seats.guard}),
     ${rowCounts(p, `${p}row_ok`, `+ (${seats.quantity} - ${seats.held})`, `+ ${seats.held}`, seats.at)}`,

  // Slot 0 of an event slotted since the booking was made: the seats it gives back join that slot's
  // share, so that the shares still add up to what is left.
  lockBooked: (p, b) => `${p}e as (select * from events where id = ${b.eventId} and organization_id = ${b.organizationId} for no key update),
     ${p}e_slot0 as (select s.* from event_slots s join ${p}e on s.event_id = ${p}e.id where s.slot = 0 for update of s),
     ${b.booking} as (select k.* from bookings k join ${p}e on k.event_id = ${p}e.id where k.id = ${b.id} and k.slot is null for update of k),
     ${p}t as (select y.* from ticket_types y join ${b.booking} on y.id = ${b.booking}.ticket_type_id for update of y),
     ${p}t_slot0 as (select u.* from ticket_type_slots u join ${p}t on u.ticket_type_id = ${p}t.id where u.slot = 0 for update of u)`,

  takesBookings: (p, at) => `exists (select 1 from ${p}e where ${p}e.status = 'PUBLISHED' and ${p}e.end_date > ${at})`,

  release: (p, when, seats) => `${rowCounts(p, when, `- ${seats.confirmed}`, `- ${seats.held}`, seats.at)},
     ${p}ue_slot0 as (
       update event_slots x set seats = ${p}e_slot0.seats + ${seats.confirmed} + ${seats.held}
         from ${when} join ${p}e_slot0 on true where x.event_id = ${p}e_slot0.event_id and x.slot = 0 and ${p}e_slot0.seats is not null),
     ${p}ut_slot0 as (
       update ticket_type_slots y set seats = ${p}t_slot0.seats + ${seats.confirmed} + ${seats.held}
         from ${when} join ${p}t_slot0 on true where y.ticket_type_id = ${p}t_slot0.ticket_type_id and y.slot = 0)`,

  confirm: (p, when, seats) => rowCounts(p, when, `+ ${seats.held}`, `- ${seats.held}`, seats.at),
};

// ---- SLOT_SEATS ------------------------------------------------------------------------------

/**
 * The counts in the locked slots `es` and `ts`: `taken` (held seats included; '' leaves it) and `held`,
 * changed by signed terms as rowCounts.
 */
const slotCounts = (p: string, when: string, taken: string, held: string) => `${p}ues as (
       update event_slots x set ${taken ? `taken = ${p}es.taken ${taken}, ` : ''}held = ${p}es.held ${held}
         from ${when} join ${p}es on true where x.event_id = ${p}es.event_id and x.slot = ${p}es.slot),
     ${p}uts as (
       update ticket_type_slots y set ${taken ? `taken = ${p}ts.taken ${taken}, ` : ''}held = ${p}ts.held ${held}
         from ${when} join ${p}ts on true where y.ticket_type_id = ${p}ts.ticket_type_id and y.slot = ${p}ts.slot)`;

/** The open slots of the event whose share (and the ticket type's slot of the same number) can take the seats, from `start` on. */
const slotsWithRoom = (p: string, seats: Reservation) => `from event_slots s join ${seats.event} on s.event_id = ${seats.event}.id
        where ${seats.event}.slots > 0 and s.open and (s.seats is null or s.taken + ${seats.quantity} <= s.seats)
          and (${seats.ticketTypeId} is null or exists (
                select 1 from ticket_type_slots u join ${p}tt on u.ticket_type_id = ${p}tt.id
                 where u.slot = s.slot and u.taken + ${seats.quantity} <= u.seats))
        order by (s.slot + ${seats.event}.slots - ${seats.start} % ${seats.event}.slots) % ${seats.event}.slots`;

export const SLOT_SEATS: InventoryMode = {
  // The slot claimed: of the slots with room, the first from `start` that no other booking holds
  // (SKIP LOCKED); or, when every such slot is held, the first of them, waiting for that one slot
  // only (PostgreSQL runs the second branch only when the first found nothing: UNION ALL under
  // LIMIT). Waiting for exactly one row matters: a row lock is kept to the end of the transaction
  // even when the row fails the recheck after the wait, so a scan that moved on to the next slot
  // could hold several, out of slot order, and deadlock with a booking that locks them all in order
  // (bookSlottedSlowly). The claimed slot is checked again under its lock (`slot_ok`). Neither the
  // event's row nor the ticket type's is locked: bookings of one event commit side by side.
  reserve: (p, seats) => `${p}tt as (select y.id, y.quantity from ticket_types y join ${seats.event} on y.event_id = ${seats.event}.id where ${seats.event}.slots > 0 and y.id = ${seats.ticketTypeId}),
     ${p}es as (
       select * from (select s.* ${slotsWithRoom(p, seats)} limit 1 for update of s skip locked) free
       union all
       select * from (
         select h.* from event_slots h join ${seats.event} on h.event_id = ${seats.event}.id
          where h.slot = (select s.slot ${slotsWithRoom(p, seats)} limit 1)
          for update of h) held
       limit 1),
     ${p}ts as (select u.* from ticket_type_slots u join ${p}es on u.slot = ${p}es.slot join ${p}tt on u.ticket_type_id = ${p}tt.id for update of u),
     ${p}slot_ok as (
       select ${p}es.event_id, ${p}es.slot from ${p}es join ${seats.event} on true left join ${p}ts on true
        where ${p}es.open and ${seats.event}.status = 'PUBLISHED' and ${seats.event}.end_date > ${seats.at}
          and (${p}es.seats is null or ${p}es.taken + ${seats.quantity} <= ${p}es.seats)
          and (${seats.ticketTypeId} is null or ${p}ts.taken + ${seats.quantity} <= ${p}ts.seats)${seats.guard}),
     ${slotCounts(p, `${p}slot_ok`, `+ ${seats.quantity}`, `+ ${seats.held}`)}`,

  lockBooked: (p, b) => `${p}es as (select s.* from event_slots s where s.event_id = ${b.eventId} and s.slot = ${b.slot} for update),
     ${b.booking} as (
       select k.* from bookings k join ${p}es on k.event_id = ${p}es.event_id and k.slot = ${p}es.slot
        where k.id = ${b.id} and k.organization_id = ${b.organizationId} for update of k),
     ${p}ts as (select u.* from ticket_type_slots u join ${b.booking} on u.ticket_type_id = ${b.booking}.ticket_type_id and u.slot = ${b.booking}.slot for update of u)`,

  // A slotted event that stops taking bookings closes its slots under their locks (closeForBookings).
  takesBookings: (p, at) =>
    `exists (select 1 from ${p}es where ${p}es.open) and exists (select 1 from events v join ${p}es on v.id = ${p}es.event_id where v.end_date > ${at})`,

  release: (p, when, seats) => slotCounts(p, when, `- ${seats.confirmed} - ${seats.held}`, `- ${seats.held}`),

  confirm: (p, when, seats) => slotCounts(p, when, '', `- ${seats.held}`),
};

/**
 * What is left in all of a slotted event's slots (SQL; `eventId` its id): null without a limit. With
 * `slotRoomOfTicketType` and `slotHeld`, what a refused booking is answered from.
 */
export const slotRoomOfEvent = (eventId: string) =>
  `(select case when bool_or(s.seats is null) then null else sum(s.seats - s.taken)::int end from event_slots s where s.event_id = ${eventId})`;
export const slotRoomOfTicketType = (ticketTypeId: string) => `(select sum(u.seats - u.taken)::int from ticket_type_slots u where u.ticket_type_id = ${ticketTypeId})`;
export const slotHeld = (eventId: string) => `(select sum(s.held)::int from event_slots s where s.event_id = ${eventId})`;
