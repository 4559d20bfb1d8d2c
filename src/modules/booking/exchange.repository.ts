import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { hole, outboxCtes } from '../../platform/outbox/outbox';
import { exampleOutbox, OUTBOX_WRITTEN } from '../event/event-change-statements';
import { effectiveStatus, type EventStatus } from '../event/event-status';
import { ROW_SEATS, SLOT_SEATS, slotRoomOfEvent, slotRoomOfTicketType, type InventoryMode, type Reservation } from '../inventory/inventory-modes.repository';
import type { BookingEntity } from './booking.entity';
import { BOOKING_COLUMNS, changeOf, columnsOf, EVENT_COLUMNS } from './booking-statement';
import { BODY_DATA, BODY_HOLES, CHANGED_OR_FOUND, jsonOf } from './check-in.repository';
import type { ExchangeFound } from './exchange.policy';

const sql = sqlStatements(__filename);

/*
 * An exchange (D29): a CONFIRMED booking's seats move to another event of the organization, in the
 * inventory mode of each side, from the modes' fragments (inventory-modes.repository.ts): `lockBooked`
 * and `release` where the seats are, `reserve` where they go. The command's transaction runs, in this
 * order:
 *   1. where the booking is and which event the slug names (placesOf, no lock);
 *   2. both events' rows locked in the order of their ids (lockEventsInOrder): two exchanges in opposite
 *      directions queue on the first row instead of each holding one the other waits for; every other
 *      change locks one event's rows only, in the order of inventory.repository.ts, and so do the
 *      steps below for each of the two events;
 *   3. ONE statement (MOVE): the booking locked where its seats are counted, the rules of
 *      exchange.policy.ts as its guards (the booking CONFIRMED, not checked in, before its event's
 *      transfer lock; the target another event, a ticket type given when it has some, bookable, with
 *      room), seats taken at the target, given back at the source, the booking's event, slot and ticket
 *      type changed, its `booking.exchanged` message. It always answers one row: the booking as moved or
 *      as found, and what the command works out a refusal from (only on that path).
 * One statement cannot change a row twice (the fragments' contract): the source and the target are
 * never the same event (an exchange within one event is refused before any seat moves).
 */

interface PlacesRow {
  event_id: string | null;
  slot: number | null;
  quantity: number | null;
  target_id: string | null;
}

const PLACES = sql.statement<{ organizationId: string; id: string; toSlug: string }, PlacesRow>(
  'exchangePlaces',
  `select k.event_id, k.slot, k.quantity, (select v.id from events v where v.organization_id = :organizationId and v.slug = :toSlug) as target_id
     from (select 1) one left join bookings k on k.organization_id = :organizationId and k.id = :id`,
);

/** Where the organization's booking is counted (null: no such booking) and the id of the event `toSlug` (null: none). */
export interface Places {
  readonly booking: { readonly eventId: string; readonly slot: number | null; readonly quantity: number } | null;
  readonly targetId: string | null;
}

/** Step 1: where the booking is and which event `toSlug` is, as read now (no lock). */
export async function placesOf(em: EntityManager, organizationId: string, id: string, toSlug: string): Promise<Places> {
  const [row] = await executeStatement(em, PLACES, { organizationId, id, toSlug });
  return {
    booking: row.event_id === null ? null : { eventId: row.event_id, slot: row.slot === null ? null : Number(row.slot), quantity: Number(row.quantity) },
    targetId: row.target_id,
  };
}

const LOCK_EVENTS = sql.statement<{ organizationId: string; fromEventId: string; toEventId: string | null }, { id: string; slots: number }>(
  'lockExchangeEvents',
  `select id, slots from events where organization_id = :organizationId and id in (:fromEventId, :toEventId) order by id for no key update`,
);

/** Step 2: the rows of the two events locked in the order of their ids (rows are locked after the sort). Returns each one's slot count. */
export async function lockEventsInOrder(em: EntityManager, organizationId: string, fromEventId: string, toEventId: string | null): Promise<Map<string, number>> {
  const rows = await executeStatement(em, LOCK_EVENTS, { organizationId, fromEventId, toEventId });
  return new Map(rows.map((row) => [row.id, Number(row.slots)]));
}

/** Seats taken at the target: only for a booking the rules let move (`movable`). */
const TO: Reservation = {
  event: 'target',
  ticketTypeId: ':toTicketTypeId::text',
  quantity: ':quantity::int',
  held: '0',
  at: ':at::timestamptz',
  start: ':start::int',
  guard: ' and exists (select 1 from movable)',
};

/** booking.exchanged: the booking as the API shows it after the move, and where it came from and went to. */
const MESSAGE_DATA = { ...BODY_DATA, from: { eventId: hole(), eventSlug: hole() }, to: { eventId: hole(), eventSlug: hole() } };
const MESSAGE_HOLES = [...BODY_HOLES, jsonOf('g.from_event_id'), jsonOf('g.from_event_slug'), jsonOf('g.event_id'), jsonOf('g.event_slug')];

type SourceMode = 'row' | 'slot';
const MODES: Record<SourceMode, InventoryMode> = { row: ROW_SEATS, slot: SLOT_SEATS };

interface MoveRow extends Record<string, unknown> {
  changed: boolean;
  start_date: string | null;
  transfer_lock_minutes: number | null;
  from_event_slug: string | null;
  from_ticket_type_id: string | null;
  ticket_type_required: boolean | null;
  outbox_written: boolean;
}

interface MoveParams {
  organizationId: string;
  id: string;
  fromEventId: string;
  fromSlot: number | null;
  quantity: number;
  toSlug: string;
  toTicketTypeId: string | null;
  start: number;
  at: Date;
  messages: readonly unknown[];
}

/** Step 3 (see above), for a booking counted in `source`'s mode; the target's mode is read with it (both reserves, each gated on it). */
const MOVE = sql.family<{ source: SourceMode; messages: string }, MoveParams, MoveRow>(
  'exchangeBooking',
  ({ source, messages }) => {
    const from = MODES[source];
    return `with ${from.lockBooked('from_', { id: ':id', organizationId: ':organizationId', eventId: ':fromEventId', slot: ':fromSlot::smallint', booking: 'b' })},
     src as (
       select v.id, v.slug, v.start_date, o.transfer_lock_minutes
         from b join events v on v.organization_id = b.organization_id and v.id = b.event_id join organizations o on o.id = b.organization_id),
     target as (select ${EVENT_COLUMNS.join(', ')} from events where organization_id = :organizationId and slug = :toSlug),
     typed as (select exists (select 1 from ticket_types y join target on y.event_id = target.id) as required),
     movable as (
       select b.id, b.quantity as confirmed, 0 as held from b join src on true join target on target.id <> b.event_id
        where b.status = 'CONFIRMED' and b.checked_in_at is null and b.quantity = :quantity::int
          and :at::timestamptz < src.start_date - make_interval(mins => src.transfer_lock_minutes)
          and (:toTicketTypeId::text is not null or not (select required from typed))),
     ${ROW_SEATS.reserve('to_', TO)},
     ${SLOT_SEATS.reserve('to_', TO)},
     taken as (select event_id, slot from to_row_ok union all select event_id, slot from to_slot_ok),
     moving as (select movable.* from movable where exists (select 1 from taken)),
     ${from.release('from_', 'moving', { confirmed: 'moving.confirmed', held: 'moving.held', at: ':at::timestamptz' })},
     ub as (
       update bookings k set event_id = taken.event_id, slot = taken.slot, ticket_type_id = :toTicketTypeId::text
         from moving, taken, src, target
        where k.organization_id = :organizationId and k.id = moving.id
        returning k.*, target.slug as event_slug, src.id as from_event_id, src.slug as from_event_slug),
     ${fragment('messages', messages)}
   select ${columnsOf('r', 'b', BOOKING_COLUMNS)}, ub.id is not null as changed, b.ticket_type_id as from_ticket_type_id,
          src.start_date, src.transfer_lock_minutes, src.slug as from_event_slug,
          ${columnsOf('target', 'target', EVENT_COLUMNS)}, (select required from typed) as ticket_type_required,
          coalesce(to_t.id, to_tt.id) as "type.id", coalesce(to_t.quantity, to_tt.quantity) as "type.quantity", to_t.sold + to_t.held as "type.taken",
          case when ub.id is null and target.slots > 0 then ${slotRoomOfEvent('target.id')} end as "room.event",
          case when ub.id is null and target.slots > 0 then ${slotRoomOfTicketType('to_tt.id')} end as "room.ticketType",
          ${OUTBOX_WRITTEN}
     from (select 1) one left join b on true left join src on true left join target on true left join to_t on true left join to_tt on true
          left join ub on true
          ${CHANGED_OR_FOUND}`;
  },
  {
    key: ({ source, messages }) => `${source}:${messages}`,
    examples: () => ({
      "from an event that counts its seats on its row": { source: 'row', messages: exampleOutbox('booking.exchanged', 'ub', MESSAGE_HOLES) },
      'from a slot of a slotted event': { source: 'slot', messages: exampleOutbox('booking.exchanged', 'ub', MESSAGE_HOLES) },
    }),
  },
);

/** What an exchange asks for: the booking where placesOf found it, and where it goes. */
export interface Move {
  readonly id: string;
  readonly fromEventId: string;
  readonly fromSlot: number | null;
  readonly quantity: number;
  readonly toSlug: string;
  readonly toTicketTypeId: string | null;
  /** A slotted target's slot to look from (random: concurrent exchanges spread over the slots). */
  readonly start: number;
}

/** What the move statement did, or found (for exchange.policy.ts). */
export interface MoveAnswer extends ExchangeFound {
  readonly changed: boolean;
  /** The booking as moved (changed), or as found where it was looked for; null when it was not there. */
  readonly booking: (NonNullable<ExchangeFound['booking']> & { readonly entity: BookingEntity }) | null;
  /** Where it was: its event and ticket type before the move. */
  readonly from: { readonly eventId: string; readonly eventSlug: string; readonly ticketTypeId: string | null } | null;
}

const date = (value: unknown) => (value == null ? null : new Date(value as string));
const numberOrNull = (value: unknown) => (value == null ? null : Number(value));

/** Step 3: moves the organization's booking at time `at`, if the rules allow; the statement's answer either way. */
export async function moveBooking(em: EntityManager, organizationId: string, move: Move, at: Date): Promise<MoveAnswer> {
  const outbox = outboxCtes(organizationId, 'booking.exchanged', 'ub', MESSAGE_DATA, MESSAGE_HOLES);
  const statement = MOVE({ source: move.fromSlot === null ? 'row' : 'slot', messages: outbox.sql });
  const [row] = await executeStatement(em, statement, { organizationId, ...move, at, messages: outbox.bindings });
  const { changed, booking } = changeOf(em, row, row.changed);
  const start = date(row.start_date);
  const slotted = row['target.id'] != null && Number(row['target.slots']) > 0;
  return {
    changed,
    booking:
      booking === null
        ? null
        : { entity: booking, eventId: booking.event.id, status: booking.status, expiresAt: booking.expiresAt, checkedInAt: booking.checkedInAt },
    from: start === null ? null : { eventId: move.fromEventId, eventSlug: row.from_event_slug ?? '', ticketTypeId: row.from_ticket_type_id },
    start,
    transferLockMinutes: row.transfer_lock_minutes ?? 0,
    target:
      row['target.id'] == null
        ? null
        : {
            id: row['target.id'] as string,
            slug: row['target.slug'] as string,
            status: effectiveStatus(row['target.status'] as EventStatus, new Date(row['target.end_date'] as string)),
            capacity: numberOrNull(row['target.capacity']),
            // Seats in use on its row: confirmed and held (D20).
            registrationCount: Number(row['target.registration_count']) + Number(row['target.held_count']),
            slots: Number(row['target.slots']),
          },
    ticketTypeRequired: row.ticket_type_required === true,
    ticketType: row['type.id'] == null ? null : { id: row['type.id'] as string, quantity: Number(row['type.quantity']), sold: numberOrNull(row['type.taken']) },
    // A refusal at a slotted target: what was left in all its slots, as the statement saw them.
    room: changed || !slotted ? null : { event: numberOrNull(row['room.event']), ticketType: numberOrNull(row['room.ticketType']) },
  };
}
