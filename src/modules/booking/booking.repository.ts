import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { effectiveStatus, type EventStatus } from '../event/event-status';
import { EventEntity } from '../event/event.entity';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { noteOutboxWrite, outboxCtes } from '../../platform/outbox/outbox';
import { executePrepared, statementText } from '../../platform/db/prepared-reads';
import type { RecoveryPointCtes } from '../../platform/db/unit-of-work-scope';
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
 * A rule of every statement here: a row that a CTE locked (FOR UPDATE / FOR NO KEY UPDATE) is changed
 * from the values that CTE returned (`ok.registration_count + q`), never from the target's own column
 * (`x.registration_count + q`). PostgreSQL re-reads a locked row that changed while the lock waited, so
 * the CTE sees the latest version; an UPDATE of that same row in the same statement, though, computes
 * from the version its snapshot saw when the newer one is locked by this very statement: a concurrent
 * cancellation then let a booking past the capacity (found by test/bookings-processes.test.ts,
 * reproduced with pgbench; the CHECK constraints caught it as a 500).
 *
 * A booking and a cancellation are each ONE statement (issue 19): the event's row lock, then the
 * ticket type's, the rules of booking.policy.ts as the guards of the updates (status, end, capacity,
 * quantity), the counts, the booking row and the outbox message commit together, and no round trip
 * to the service happens while a lock is held. The statement always answers one row: the change, or
 * what it found, from which the command works out the refusal (only on that path).
 */

/** What a refusal is worked out from. */
const EVENT_COLUMNS = ['id', 'slug', 'status', 'end_date', 'capacity', 'registration_count', 'slots'] as const;
const TICKET_TYPE_COLUMNS = ['id', 'quantity', 'sold'] as const;
const BOOKING_COLUMNS = [
  'id', 'organization_id', 'event_id', 'ticket_type_id', 'quantity', 'attendee_email', 'attendee_name', 'status',
  'created_at', 'cancelled_at', 'slot',
] as const;

/** The booking as a cancellation left it (`ub`) or, when it refused, as found (`b`): the row `coalesce_b`. */
const CANCELLED_OR_FOUND = `left join lateral (
            select ${BOOKING_COLUMNS.map((column) => `ub.${column}`).join(', ')} where ub.id is not null
            union all
            select ${BOOKING_COLUMNS.map((column) => `b.${column}`).join(', ')} where ub.id is null) coalesce_b on true`;

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

/** What a booking or cancellation statement found or changed. */
export interface BookingChange {
  /** Whether the statement made its change (false: it refused, and the rows are what it found). */
  readonly changed: boolean;
  /**
   * The booking made or cancelled (or, when a cancellation refused, as found), as a managed entity;
   * null when there is none. Only the booking is made an entity (that costs CPU on the hot path); its
   * event and ticket type load when an answer asks for them.
   */
  readonly booking: BookingEntity | null;
  /** The event as found (refusals only; null when there is none or the change was made). */
  readonly event: { slug: string; status: EventStatus; capacity: number | null; registrationCount: number } | null;
  /** The ticket type as found (refusals only). */
  readonly ticketType: { id: string; quantity: number; sold: number } | null;
  /**
   * Refusals only: the event's slot count as the statement saw it (null: no such event), which tells
   * the caller to run the other statement when this one was the wrong one for it (a booking statement
   * for an event on its row met a slotted event, or the other way).
   */
  readonly slots: number | null;
  /**
   * Refusals of a slotted event's statement only: what was left in all its slots and in the ticket
   * type's, as the statement saw them (null: no limit, or no ticket type).
   */
  readonly room?: { readonly event: number | null; readonly ticketType: number | null };
}

/** The booking's row as a managed entity, registered as loaded (its properties given directly: no column mapping). */
function managedBooking(em: EntityManager, row: Record<string, unknown>): BookingEntity {
  const date = (value: unknown) => (value == null ? null : new Date(value as string));
  return em.merge(
    BookingEntity,
    {
      id: row.id as string,
      organization: row.organization_id as string,
      event: row.event_id as string,
      ticketType: row.ticket_type_id as string | null,
      quantity: row.quantity as number,
      attendeeEmail: row.attendee_email as string,
      attendeeName: row.attendee_name as string,
      status: row.status as BookingStatus,
      createdAt: date(row.created_at)!,
      cancelledAt: date(row.cancelled_at),
      slot: row.slot as number | null,
    },
    { refresh: true },
  );
}

/**
 * A booking just made, from its row, for the answer only: the entity's class with its fields set
 * directly (the ORM's hydration and identity map cost a tenth of a booking's CPU on the hot path), its
 * organization, event and ticket type made references (and registered) only when the answer reads
 * them. Nothing later in the request changes it; a retry after a crash loads it again by id.
 */
function madeBooking(em: EntityManager, row: Record<string, unknown>): BookingEntity {
  const booking = Object.create(BookingEntity.prototype) as BookingEntity;
  const value = (field: unknown) => ({ value: field, writable: true, enumerable: true, configurable: true });
  const lazy = <T>(make: () => T) => {
    let made: T | undefined;
    return { get: () => (made ??= make()), enumerable: true, configurable: true };
  };
  const ticketTypeId = row.ticket_type_id as string | null;
  Object.defineProperties(booking, {
    id: value(row.id),
    organization: lazy(() => em.getReference(OrganizationEntity, row.organization_id as string, { wrapped: true })),
    event: lazy(() => em.getReference(EventEntity, row.event_id as string, { wrapped: true })),
    ticketType: lazy(() => (ticketTypeId === null ? null : em.getReference(TicketTypeEntity, ticketTypeId, { wrapped: true }))),
    quantity: value(row.quantity),
    attendeeEmail: value(row.attendee_email),
    attendeeName: value(row.attendee_name),
    status: value(row.status),
    createdAt: value(new Date(row.created_at as string)),
    cancelledAt: value(row.cancelled_at == null ? null : new Date(row.cancelled_at as string)),
    slot: value(row.slot),
  });
  return booking;
}

/**
 * `answers`: for a booking just made, the entity manager its answer loads the event and ticket type
 * with: the request's own, not a transaction's (the answer is read after the commit).
 */
function changeOf(em: EntityManager, answer: Record<string, unknown>, changed: boolean, answers?: EntityManager): BookingChange {
  const booking = rowOf(answer, 'b', BOOKING_COLUMNS);
  if (answer.outbox_written === true) noteOutboxWrite(em);
  const found = !changed && answer['e.id'] != null;
  return {
    changed,
    slots: !changed && answer['probe.id'] != null ? Number(answer['probe.slots']) : null,
    booking: booking ? (answers ? madeBooking(answers, booking) : managedBooking(em, booking)) : null,
    event: found
      ? {
          slug: answer['e.slug'] as string,
          // Dates come as the ORM's driver gives them (text), as for every raw statement.
          status: effectiveStatus(answer['e.status'] as EventStatus, new Date(answer['e.end_date'] as string)),
          capacity: answer['e.capacity'] as number | null,
          registrationCount: answer['e.registration_count'] as number,
        }
      : null,
    ticketType:
      !changed && answer['t.id'] != null
        ? { id: answer['t.id'] as string, quantity: answer['t.quantity'] as number, sold: answer['t.sold'] as number }
        : null,
    ...(found && 'room.event' in answer
      ? { room: { event: answer['room.event'] as number | null, ticketType: answer['room.ticketType'] as number | null } }
      : {}),
  };
}

/**
 * An Idempotency-Key's recovery point inside a booking's statement (the unit of work's
 * `recoveryPoint`): its claim CTE first and the change gated on it, its point after the booking row.
 */
function idempotencyParts(idempotency: RecoveryPointCtes | undefined) {
  if (!idempotency) return { claim: '', gate: '', point: '', held: 'true', claimBindings: [], pointBindings: [] };
  const point = idempotency.point('b');
  return {
    claim: `${idempotency.claim.sql},`,
    gate: 'and exists (select 1 from idem_claim)',
    point: `${point.sql},`,
    held: 'exists (select 1 from idem_claim)',
    claimBindings: idempotency.claim.bindings,
    pointBindings: point.bindings,
  };
}

/** Runs a booking statement: the change, or what it found; a lost Idempotency-Key claim is refused. */
async function runBooking(
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

/** The values of a booking statement's `insert into bookings … select` (id to created_at). */
const insertBindings = (organizationId: string, fields: NewBooking) => [
  fields.id, organizationId, fields.ticketTypeId, fields.quantity, fields.attendeeEmail, fields.attendeeName, fields.createdAt,
];

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
 * Books an event that keeps its counts on its row (not slotted) in one statement: locks the
 * organization's event `eventSlug`, then its ticket type, and only if the event is bookable (PUBLISHED
 * and not ended) and both the capacity and the type's quantity can take the seats, adds them to both
 * counts, inserts the booking and its `booking.created` message. `webhookData` is the message's data
 * with hole() for the event's id (filled in by the statement). A slotted event is left alone, its row
 * not even locked (`slots` tells the caller).
 */
export async function bookSeats(
  em: EntityManager,
  organizationId: string,
  fields: NewBooking,
  webhookData: object,
  answers: EntityManager = em,
  idempotency?: RecoveryPointCtes,
): Promise<BookingChange> {
  const { eventSlug, ticketTypeId, quantity, createdAt } = fields;
  const outbox = outboxCtes(organizationId, 'booking.created', 'b', webhookData, ['to_json(g.event_id)::text']);
  const idem = idempotencyParts(idempotency);
  const sql = statementText(`bookSeats${idempotency ? ':keyed' : ''}`, () => `with ${idem.claim}
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

// ---- Slotted events (src/modules/inventory/) ------------------------------------------------------

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
export async function bookSlotted(
  em: EntityManager,
  organizationId: string,
  fields: NewBooking,
  webhookData: object,
  start: number,
  answers: EntityManager = em,
  idempotency?: RecoveryPointCtes,
): Promise<BookingChange> {
  const { eventSlug, ticketTypeId, quantity, createdAt } = fields;
  const outbox = outboxCtes(organizationId, 'booking.created', 'b', webhookData, ['to_json(g.event_id)::text']);
  const idem = idempotencyParts(idempotency);
  const sql = statementText(`bookSlotted${idempotency ? ':keyed' : ''}`, () => `with ${idem.claim}
     e as (select id, slug, status, end_date, capacity, registration_count, slots from events where organization_id = ? and slug = ?),
     tt as (select t.id, t.quantity from ticket_types t join e on t.event_id = e.id where t.id = ?::text),
     es as (${CLAIM_FREE_SLOT} union all ${CLAIM_HELD_SLOT} limit 1),
     ts as (select u.* from ticket_type_slots u join es on u.slot = es.slot join tt on u.ticket_type_id = tt.id for update of u),
     ok as (
       select es.event_id, es.slot, es.taken, ts.taken as type_taken from es join e on true left join ts on true
        where es.open and e.status = 'PUBLISHED' and e.end_date > ?::timestamptz
          and (es.seats is null or es.taken + ?::int <= es.seats)
          and (?::text is null or ts.taken + ?::int <= ts.seats) ${idem.gate}),
     ues as (update event_slots x set taken = ok.taken + ?::int from ok where x.event_id = ok.event_id and x.slot = ok.slot),
     uts as (update ticket_type_slots y set taken = ok.type_taken + ?::int from ok where y.ticket_type_id = ?::text and y.slot = ok.slot),
     b as (
       insert into bookings (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at, slot)
       select ?::text, ?::text, ok.event_id, ?::text, ?::int, ?::text, ?::text, 'CONFIRMED', ?::timestamptz, ok.slot from ok
       returning *),
     ${idem.point}
     ${outbox.sql}
   select ${columnsOf('e', 'e', EVENT_COLUMNS)}, tt.id as "t.id", tt.quantity as "t.quantity", ${columnsOf('b', 'b', BOOKING_COLUMNS)},
          e.id as "probe.id", e.slots as "probe.slots", exists (select 1 from outbox_message) as outbox_written, ${idem.held} as claim_held,
          -- Refused: what is left in all of the event's and the ticket type's slots, as this statement saw them.
          case when b.id is null then (select case when bool_or(s.seats is null) then null else sum(s.seats - s.taken)::int end
                                         from event_slots s where s.event_id = e.id) end as "room.event",
          case when b.id is null then (select sum(u.seats - u.taken)::int from ticket_type_slots u where u.ticket_type_id = tt.id) end as "room.ticketType"
     from (select 1) one left join e on true left join tt on true left join b on true`);
  const claim = [quantity, ticketTypeId, quantity, start];
  return runBooking(em, sql, idempotency, answers, [
    ...idem.claimBindings,
    organizationId, eventSlug,
    ticketTypeId,
    ...claim, ...claim,
    createdAt, quantity, ticketTypeId, quantity,
    quantity,
    quantity, ticketTypeId,
    ...insertBindings(organizationId, fields),
    ...idem.pointBindings,
    ...outbox.bindings,
  ]);
}

/**
 * Cancels a booking that holds seats in a slot of its event in one statement: locks that event slot,
 * then the booking, then its ticket type's slot of the same number, and only if the booking is still
 * CONFIRMED marks it CANCELLED at `cancelledAt`, gives its seats back to both slots and inserts its
 * `booking.cancelled` message (`webhookData`, with hole() for the event's slug).
 */
export async function cancelSlotted(
  em: EntityManager,
  organizationId: string,
  booking: { id: string; eventId: string; slot: number },
  cancelledAt: Date,
  webhookData: object,
): Promise<BookingChange> {
  const outbox = outboxCtes(organizationId, 'booking.cancelled', 'ub', webhookData, ['to_json(g.event_slug)::text']);
  const sql = `with
     es as (select s.* from event_slots s where s.event_id = ? and s.slot = ?::smallint for update),
     b as (select k.* from bookings k join es on k.event_id = es.event_id and k.slot = es.slot
            where k.id = ? and k.organization_id = ? for update of k),
     ts as (select u.* from ticket_type_slots u join b on u.ticket_type_id = b.ticket_type_id and u.slot = b.slot for update of u),
     ok as (select b.id, b.quantity, b.ticket_type_id, b.slot, b.event_id from b where b.status = 'CONFIRMED'),
     ub as (
       update bookings k set status = 'CANCELLED', cancelled_at = ?::timestamptz
         from ok where k.id = ok.id returning k.*, (select slug from events where id = k.event_id) as event_slug),
     ues as (update event_slots x set taken = es.taken - ok.quantity from ok join es on true where x.event_id = ok.event_id and x.slot = ok.slot),
     uts as (update ticket_type_slots y set taken = ts.taken - ok.quantity from ok join ts on true where y.ticket_type_id = ok.ticket_type_id and y.slot = ok.slot),
     ${outbox.sql}
   select ${columnsOf('coalesce_b', 'b', BOOKING_COLUMNS)},
          ub.id is not null as cancelled,
          exists (select 1 from outbox_message) as outbox_written
     from (select 1) one left join b on true left join ub on true
          ${CANCELLED_OR_FOUND}`;
  const [answer] = await executePrepared<Record<string, unknown>>(em, sql, [
    booking.eventId, booking.slot,
    booking.id, organizationId,
    cancelledAt,
    ...outbox.bindings,
  ]);
  return changeOf(em, answer, answer.cancelled === true);
}
