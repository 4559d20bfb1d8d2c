import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import type { EventEntity } from '../event/event.entity';
import { exampleOutbox } from '../event/event-change-statements';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { recoveryPointTexts } from '../../platform/idempotency/held-key';
import { SLOT_COUNT } from '../inventory/inventory.policy';
import { ROW_SEATS, SLOT_SEATS, slotHeld, slotRoomOfEvent, slotRoomOfTicketType, type Reservation } from '../inventory/inventory-modes.repository';
import { BookingEntity, BookingStatus } from './booking.entity';
import { QUEUE_FOUND, QUEUE_GATE, QUEUE_USED } from '../queue/queue-gate.repository';
import {
  BOOKING_COLUMNS,
  BOOKING_HOLES,
  bookingParts,
  changeOf,
  columnsOf,
  EVENT_COLUMNS,
  INSERT_BOOKING,
  type BookingChange,
  type BookingInsert,
  type BookingRequest,
  type BookingTexts,
} from './booking-statement';

export type { BookingChange, NewBooking } from './booking-statement';

const sql = sqlStatements(__filename);

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

// ---- Write side: a booking ----------------------------------------------------------------------

/*
 * A rule of every booking statement (this one, booking-transitions.repository.ts, check-in): a row
 * that a CTE locked (FOR UPDATE / FOR NO KEY UPDATE) is changed from the values that CTE returned
 * (`e.registration_count + q`), never from the target's own column (`x.registration_count + q`).
 * PostgreSQL re-reads a locked row that changed while the lock waited, so the CTE sees the latest
 * version; an UPDATE of that same row in the same statement, though, computes from the version its
 * snapshot saw when the newer one is locked by this very statement: a concurrent cancellation then
 * let a booking past the capacity (found by test/bookings-processes.test.ts, reproduced with pgbench;
 * the CHECK constraints caught it as a 500). What the statements share (answer columns, the answer as
 * a BookingChange, the booking's insert): booking-statement.ts.
 */

/** The seats a booking takes, as the inventory modes' reserve reads them (inventory-modes.repository.ts). */
const SEATS: Reservation = {
  event: 'ev',
  ticketTypeId: ':ticketTypeId::text',
  quantity: ':quantity::int',
  held: ':held::int',
  at: ':createdAt::timestamptz',
  start: ':start::int',
  guard: '',
};

/** A booking's parameters: its insert's, and what its seats are taken with. */
interface BookParams extends BookingInsert {
  readonly eventSlug: string;
  /** D30: whether the event's queue gates this booking, and the admission it presents. */
  readonly gated: boolean;
  readonly queueEntryId: string | null;
  readonly held: number;
  readonly start: number;
  readonly messages: readonly unknown[];
  readonly claim: readonly unknown[];
  readonly point: readonly unknown[];
}

/** The found event: as locked when its counts are on its row, else as read. */
const FOUND_EVENT = `left join lateral (
            select ${EVENT_COLUMNS.map((column) => `e.${column}`).join(', ')} where ev.slots = 0
            union all
            select ${EVENT_COLUMNS.map((column) => `ev.${column}`).join(', ')} where ev.slots > 0) found on true`;

/** A refused booking of a slotted event: what is left in all its slots, as this statement saw them. */
const ROOM = `case when b.id is null and ev.slots > 0 then ${slotRoomOfEvent('ev.id')} end as "room.event",
          case when b.id is null and ev.slots > 0 then ${slotRoomOfTicketType('tt.id')} end as "room.ticketType",
          case when b.id is null and ev.slots > 0 then ${slotHeld('ev.id')} end as "room.held"`;

/**
 * A booking, ONE statement whatever the event's inventory mode: it reads the organization's event
 * `eventSlug` with its mode (`ev`, no lock), and books in that mode: an event that keeps its counts on
 * its row locks that row, then the ticket type's (ROW_SEATS); a slotted one claims one of its slots,
 * then the ticket type's slot of the same number (SLOT_SEATS), without locking the event's or the
 * ticket type's row. The other mode's CTEs find no row. Only if the event is bookable (PUBLISHED and not ended),
 * its queue lets the booking through (QUEUE_GATE) and both the
 * capacity and the type's quantity can take the seats on the locked rows does it add them to the
 * counts, insert the booking (with its slot) and its `booking.created` message; with an
 * Idempotency-Key, the key's record is locked first and the recovery point written with the booking.
 */
const bookText = (texts: BookingTexts): string => {
  const guard = ` and exists (select 1 from qok)${texts.gate && ` ${texts.gate}`}`;
  return `with ${texts.keyed ? `${fragment('claim', texts.claim)},\n     ` : ''}ev as (select ${EVENT_COLUMNS.join(', ')}, queue_enabled, queue_on_sale_at, queue_max_seats
              from events where organization_id = :organizationId and slug = :eventSlug),
     ${QUEUE_GATE},
     ${ROW_SEATS.reserve('', { ...SEATS, guard })},
     ${SLOT_SEATS.reserve('', { ...SEATS, guard })},
     ok as (select event_id, slot from row_ok union all select event_id, slot from slot_ok),
     ${INSERT_BOOKING},
     ${QUEUE_USED},
     ${texts.keyed ? `${fragment('point', texts.point)},\n     ` : ''}${fragment('messages', texts.messages)}
   select ${columnsOf('found', 'e', EVENT_COLUMNS)},
          coalesce(t.id, tt.id) as "t.id", coalesce(t.quantity, tt.quantity) as "t.quantity", t.sold as "t.sold", t.held as "t.held",
          ${columnsOf('b', 'b', BOOKING_COLUMNS)},
          ev.id as "ev.id", ev.slots as "ev.slots", exists (select 1 from outbox_message) as outbox_written, ${texts.held} as claim_held,
          ${ROOM},
          ${QUEUE_FOUND}
     from (select 1) one left join ev on true left join e on true left join t on true left join tt on true left join b on true left join qe on true
          ${FOUND_EVENT}`;
};

/*
 * Two declared statements, without and with an Idempotency-Key: the texts around a booking's own CTEs
 * are the same for every booking (its message's CTEs, outboxCtes with the event id as its one hole;
 * the key's claim and recovery point), only their values differ.
 */
const MESSAGES = exampleOutbox('booking.created', 'b', BOOKING_HOLES);
const BOOK = sql.statement<BookParams>('bookEvent', bookText({ keyed: false, claim: '', gate: '', point: '', held: 'true', messages: MESSAGES }));
const BOOK_WITH_KEY = sql.statement<BookParams>('bookEventWithKey', bookText({ keyed: true, ...recoveryPointTexts('b'), messages: MESSAGES }));

/**
 * Books (BOOK) the request's seats: the booking made, or what the statement found (the command works
 * out the refusal). A slotted event's slot is looked for from `start` (random: concurrent bookings
 * spread over the slots). A lost Idempotency-Key claim is refused.
 */
export async function bookEvent(em: EntityManager, request: BookingRequest, start = Math.floor(Math.random() * SLOT_COUNT)): Promise<BookingChange> {
  const { fields, answers, idempotency } = request;
  const parts = bookingParts(request);
  const [answer] = await executeStatement(em, parts.keyed ? BOOK_WITH_KEY : BOOK, {
    ...parts.insert,
    eventSlug: fields.eventSlug,
    gated: request.queueGated === true,
    queueEntryId: fields.queueEntryId ?? null,
    held: parts.held,
    start,
    messages: parts.messages,
    claim: parts.claim,
    point: parts.point,
  });
  if (answer.claim_held === false) idempotency!.lost();
  return changeOf(em, answer, answer['b.id'] != null, answers);
}

/** Confirmed bookings of an event (D3: an event with any cannot be deleted). */
export async function countConfirmed(em: EntityManager, event: EventEntity): Promise<number> {
  return em.count(BookingEntity, { event, status: BookingStatus.CONFIRMED });
}
