import type { EntityManager } from '@mikro-orm/postgresql';
import type { PreparedStatements } from '../../platform/db/prepared-statements';
import { gatherInto, reshare, SLOT_COUNT, SLOTTED_MIN_CAPACITY, type SlotState } from './inventory.policy';

export type { SlotState } from './inventory.policy';

/*
 * The SQL of inventory slots (inventory.policy.ts has the rules): the tables event_slots and
 * ticket_type_slots, and the slot counts of events and ticket_types. The seats a booking takes and
 * gives back, in each mode, are in inventory-modes.repository.ts (composed by the booking statements).
 *
 * Lock order, the same for every change: the event's row, then its slots (by slot number), then a
 * booking's row, then ticket type rows, then their slots (by slot number). A booking of a slotted event
 * takes no lock on the event's or the ticket type's row: one event slot, then the ticket type's slot of
 * the same number.
 */

// ---- Read side: the counts clients see ------------------------------------------------------------

/**
 * An event's registrationCount (SQL, the events row as `alias`): its row's count plus its slots'
 * confirmed seats (a slot's `taken` counts held seats too, its `held` those alone).
 */
export const registrationCountSql = (alias: string): string =>
  `(${alias}.registration_count + case when ${alias}.slots > 0 then (select coalesce(sum(s.taken - s.held), 0)::int from event_slots s where s.event_id = ${alias}.id) else 0 end)`;

/** A ticket type's sold (SQL, the ticket_types row as `alias`): its row's count plus its slots'. */
export const soldSql = (alias: string): string =>
  `(${alias}.sold + case when ${alias}.slots > 0 then (select coalesce(sum(s.taken - s.held), 0)::int from ticket_type_slots s where s.ticket_type_id = ${alias}.id) else 0 end)`;

/**
 * An event's held seats as stored (SQL, the events row as `alias`): its row's plus its slots'. Holds
 * past their expiresAt count here until the expiry sweep gives them back (within seconds); what
 * clients read leaves them out (heldCountSql).
 */
export const storedHeldSql = (alias: string): string =>
  `(${alias}.held_count + case when ${alias}.slots > 0 then (select coalesce(sum(s.held), 0)::int from event_slots s where s.event_id = ${alias}.id) else 0 end)`;

/** A ticket type's held tickets as stored (SQL, the ticket_types row as `alias`): its row's plus its slots'. */
export const storedTypeHeldSql = (alias: string): string =>
  `(${alias}.held + case when ${alias}.slots > 0 then (select coalesce(sum(s.held), 0)::int from ticket_type_slots s where s.ticket_type_id = ${alias}.id) else 0 end)`;

/**
 * An event's heldCount as clients read it (D20; SQL, the events row as `alias`), judged at `at` (an
 * SQL timestamptz: the request's clock): its stored held seats less those of holds past their
 * expiresAt that the sweep has not given back yet. With nothing held on its row and no slots there
 * is nothing to subtract, and no booking is read: the usual event costs nothing here.
 */
export const heldCountSql = (alias: string, at: string): string =>
  `case when ${alias}.held_count = 0 and ${alias}.slots = 0 then 0 else (${storedHeldSql(alias)} - coalesce((select sum(b.quantity) from bookings b
     where b.event_id = ${alias}.id and b.status = 'HELD' and b.expires_at <= ${at}), 0))::int end`;

/** A ticket type's held as clients read it (D20; SQL, the ticket_types row as `alias`), as heldCountSql. */
export const typeHeldSql = (alias: string, at: string): string =>
  `case when ${alias}.held = 0 and ${alias}.slots = 0 then 0 else (${storedTypeHeldSql(alias)} - coalesce((select sum(b.quantity) from bookings b
     where b.event_id = ${alias}.event_id and b.ticket_type_id = ${alias}.id and b.status = 'HELD' and b.expires_at <= ${at}), 0))::int end`;

/** heldCountSql for several events at once (the counts of an event loaded without them): id → held. */
export async function heldOfEvents(db: PreparedStatements, eventIds: readonly string[], at: Date): Promise<Map<string, number>> {
  const rows = await db.query<{ id: string; held: number }>(
    `select e.id, ${heldCountSql('e', '$2::timestamptz')} as held from events e where e.id = any($1::text[])`,
    [eventIds, at],
  );
  return new Map(rows.map((row) => [row.id, Number(row.held)]));
}

/** heldOfEvents for ticket types: id → tickets held now. */
export async function heldOfTicketTypes(db: PreparedStatements, ticketTypeIds: readonly string[], at: Date): Promise<Map<string, number>> {
  const rows = await db.query<{ id: string; held: number }>(
    `select t.id, ${typeHeldSql('t', '$2::timestamptz')} as held from ticket_types t where t.id = any($1::text[])`,
    [ticketTypeIds, at],
  );
  return new Map(rows.map((row) => [row.id, Number(row.held)]));
}

// ---- Write side ------------------------------------------------------------------------------------

interface SlotRow {
  slot: number;
  seats: number | null;
  taken: number;
}

const toState = (row: SlotRow): SlotState => ({ slot: Number(row.slot), seats: row.seats === null ? null : Number(row.seats), taken: Number(row.taken) });

/**
 * An event that is being published (its row locked, in the transaction of its update): its slots open,
 * or, the first time, made when its capacity calls for them (usesSlots): what is left of its capacity
 * and of each ticket type's quantity split into SLOT_COUNT shares (the split of inventory.policy.ts
 * `shares`, here in SQL: one statement).
 */
export async function openForBookings(em: EntityManager, eventId: string): Promise<void> {
  const share = (room: string, slot: string) => `${room} / ${SLOT_COUNT} + case when ${slot} < ${room} % ${SLOT_COUNT} then 1 else 0 end`;
  await em.execute(
    `with ev as (select id, organization_id, slots, capacity, registration_count, held_count from events where id = ?),
          opened as (update event_slots s set open = true from ev where ev.slots > 0 and s.event_id = ev.id),
          slotted as (
            update events x set slots = ${SLOT_COUNT} from ev
             where x.id = ev.id and ev.slots = 0 and (ev.capacity is null or ev.capacity >= ?)
            returning x.id, x.organization_id, x.capacity - x.registration_count - x.held_count as room),
          made as (
            insert into event_slots (organization_id, event_id, slot, seats, taken, open)
            select organization_id, id, n, ${share('room', 'n')}, 0, true from slotted, generate_series(0, ${SLOT_COUNT - 1}) n),
          types as (
            update ticket_types t set slots = ${SLOT_COUNT} from slotted where t.event_id = slotted.id
            returning t.id, t.organization_id, t.quantity - t.sold - t.held as room)
     insert into ticket_type_slots (organization_id, ticket_type_id, slot, seats, taken)
     select organization_id, id, n, ${share('room', 'n')}, 0 from types, generate_series(0, ${SLOT_COUNT - 1}) n`,
    [eventId, SLOTTED_MIN_CAPACITY],
  );
}

/**
 * An event that stops taking bookings (its row locked: unpublished, cancelled): its slots close. The
 * update waits for the bookings holding a slot; a booking that comes after finds every slot closed.
 */
export async function closeForBookings(em: EntityManager, eventId: string): Promise<void> {
  await em.execute(`update event_slots set open = false where event_id = ?`, [eventId]);
}

/** Every slot of an event, locked (in slot order), and whether they are open; empty when it has none. */
export async function lockEventSlots(em: EntityManager, eventId: string): Promise<{ slots: SlotState[]; open: boolean }> {
  const rows = await em.execute<Array<SlotRow & { open: boolean }>>(
    `select slot, seats, taken, open from event_slots where event_id = ? order by slot for update`,
    [eventId],
  );
  return { slots: rows.map(toState), open: rows.every((row) => row.open) };
}

/** Every slot of a ticket type, locked (in slot order); empty when it has none. */
export async function lockTicketTypeSlots(em: EntityManager, ticketTypeId: string): Promise<SlotState[]> {
  const rows = await em.execute<SlotRow[]>(`select slot, seats, taken from ticket_type_slots where ticket_type_id = ? order by slot for update`, [
    ticketTypeId,
  ]);
  return rows.map(toState);
}

const intArray = (values: ReadonlyArray<number | null>) => `{${values.map((value) => (value === null ? 'NULL' : String(value))).join(',')}}`;

async function setShares(em: EntityManager, table: 'event_slots' | 'ticket_type_slots', key: 'event_id' | 'ticket_type_id', id: string, slots: readonly SlotState[]): Promise<void> {
  await em.execute(
    `update ${table} s set seats = v.seats from unnest(?::int[], ?::int[]) v(slot, seats) where s.${key} = ? and s.slot = v.slot and s.seats is distinct from v.seats`,
    [intArray(slots.map((slot) => slot.slot)), intArray(slots.map((slot) => slot.seats)), id],
  );
}

/**
 * Moves room into slot `target` of the event's and the ticket type's pools (their slots locked, as
 * given) so that it can take `requested`: a booking that found no single slot with room enough.
 */
export async function gatherRoom(
  em: EntityManager,
  event: { id: string; slots: readonly SlotState[] },
  ticketType: { id: string; slots: readonly SlotState[] } | null,
  target: number,
  requested: number,
): Promise<void> {
  await setShares(em, 'event_slots', 'event_id', event.id, gatherInto(event.slots, target, requested));
  if (ticketType) await setShares(em, 'ticket_type_slots', 'ticket_type_id', ticketType.id, gatherInto(ticketType.slots, target, requested));
}

/** What a pool's slots have taken. */
export const takenOf = (slots: readonly SlotState[]): number => slots.reduce((sum, slot) => sum + slot.taken, 0);

/**
 * A pool whose total changed (an event's capacity, a ticket type's quantity), its slots locked as
 * given: each keeps what it has taken, and `room` (what is left of the new total; null: no limit) is
 * split again. The caller refused a total below the count first.
 */
export async function reshareRoom(
  em: EntityManager,
  pool: { event: string } | { ticketType: string },
  slots: readonly SlotState[],
  room: number | null,
): Promise<void> {
  if (slots.length === 0) return;
  if ('event' in pool) await setShares(em, 'event_slots', 'event_id', pool.event, reshare(slots, room));
  else await setShares(em, 'ticket_type_slots', 'ticket_type_id', pool.ticketType, reshare(slots, room ?? 0));
}

/** A ticket type added to an event that is slotted: its quantity split over the event's slots too. */
export async function slotNewTicketType(em: EntityManager, eventId: string, ticketTypeId: string): Promise<void> {
  await em.execute(
    `with types as (update ticket_types t set slots = e.slots from events e
                     where t.id = ? and e.id = ? and e.slots > 0 returning t.id, t.organization_id, t.slots, t.quantity - t.sold as room)
     insert into ticket_type_slots (organization_id, ticket_type_id, slot, seats, taken)
     select t.organization_id, t.id, n - 1, t.room / t.slots + case when n - 1 < t.room % t.slots then 1 else 0 end, 0
       from types t, generate_series(1, t.slots) n`,
    [ticketTypeId, eventId],
  );
}

/** A slotted event's pool, locked: its slots, and (read after the locks) its row's count and capacity. */
export interface EventPool {
  readonly slots: SlotState[];
  readonly open: boolean;
  /** The event's seats in use, confirmed and held: its row's counts plus its slots'. */
  readonly registrationCount: number;
  readonly capacity: number | null;
}

/** Every slot of the event locked (in slot order), and its count as it stands under those locks. */
export async function lockEventPool(em: EntityManager, eventId: string): Promise<EventPool> {
  const { slots, open } = await lockEventSlots(em, eventId);
  const [row] = await em.execute<Array<{ registration_count: number; held_count: number; capacity: number | null }>>(
    'select registration_count, held_count, capacity from events where id = ?',
    [eventId],
  );
  return { slots, open, registrationCount: (row?.registration_count ?? 0) + (row?.held_count ?? 0) + takenOf(slots), capacity: row?.capacity ?? null };
}

/**
 * Every slot of the ticket type locked (in slot order), and its tickets in use (sold and held) and
 * quantity under those locks.
 */
export async function lockTicketTypePool(em: EntityManager, ticketTypeId: string): Promise<{ slots: SlotState[]; sold: number; quantity: number }> {
  const slots = await lockTicketTypeSlots(em, ticketTypeId);
  const [row] = await em.execute<Array<{ sold: number; held: number; quantity: number }>>('select sold, held, quantity from ticket_types where id = ?', [ticketTypeId]);
  return { slots, sold: (row?.sold ?? 0) + (row?.held ?? 0) + takenOf(slots), quantity: row?.quantity ?? 0 };
}
