import type { EntityManager } from '@mikro-orm/postgresql';
import { executeOnOrm, executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { noteOutboxWrite, outboxCtes } from '../../platform/outbox/outbox';
import { lockEventSlots } from '../inventory/inventory.repository';
import { WaitlistStatus } from './waitlist-entry.entity';

const sql = sqlStatements(__filename);

/*
 * The waiting list's locks and changes (D21; its reads: waitlist.read-repository.ts). The organization comes first: another
 * organization's entry or event is simply not found (D1).
 *
 * Locks, in the order of every other change (src/modules/inventory/inventory.repository.ts): the
 * event's row, then its slots in slot order, then bookings, entries and ticket types. A join and an
 * offer pass take the event's row lock and every slot of a slotted event, so that they see every seat
 * a concurrent change gave back, and every entry a concurrent join added, and never offer a seat twice.
 */

/** Which event a change names: by id (a booking's), by slug (updateEvent) or by one of its ticket types. */
export type EventTarget = { readonly eventId: string } | { readonly slug: string } | { readonly ticketTypeId: string };

const WAITING = `exists (select 1 from waitlist_entries w where w.event_id = e.id and w.status = 'WAITING')`;
const WAITING_BY_ID = sql.statement<{ eventId: string; organizationId: string }, { id: string }>(
  'waitingEventById',
  `select e.id from events e where e.id = :eventId and e.organization_id = :organizationId and ${WAITING}`,
);
const WAITING_BY_SLUG = sql.statement<{ slug: string; organizationId: string }, { id: string }>(
  'waitingEventBySlug',
  `select e.id from events e where e.slug = :slug and e.organization_id = :organizationId and ${WAITING}`,
);
const WAITING_BY_TICKET_TYPE = sql.statement<{ ticketTypeId: string; organizationId: string }, { id: string }>(
  'waitingEventByTicketType',
  `select e.id from ticket_types t join events e on e.id = t.event_id where t.id = :ticketTypeId and e.organization_id = :organizationId and ${WAITING}`,
);

/**
 * The organization's event of `target` when it has WAITING entries, else null: one index-only
 * `exists` on the partial index of waiting entries (what every change that frees seats pays).
 */
export async function waitingEventId(em: EntityManager, organizationId: string, target: EventTarget): Promise<string | null> {
  const [row] =
    'eventId' in target
      ? await executeStatement(em, WAITING_BY_ID, { eventId: target.eventId, organizationId })
      : 'slug' in target
        ? await executeStatement(em, WAITING_BY_SLUG, { slug: target.slug, organizationId })
        : await executeStatement(em, WAITING_BY_TICKET_TYPE, { ticketTypeId: target.ticketTypeId, organizationId });
  return row?.id ?? null;
}

// ---- Under the event's locks -------------------------------------------------------------------------

const LOCK_EVENT_BY_ID = sql.statement<{ organizationId: string; id: string }, { id: string; slots: number }>(
  'lockEventById',
  'select id, slots from events where organization_id = :organizationId and id = :id for no key update',
);
const LOCK_EVENT_BY_SLUG = sql.statement<{ organizationId: string; slug: string }, { id: string; slots: number }>(
  'lockEventBySlug',
  'select id, slots from events where organization_id = :organizationId and slug = :slug for no key update',
);

/**
 * Locks the organization's event (`eventId`, or `slug`) for a join or an offer pass: its row (FOR NO
 * KEY UPDATE, as a booking of it and every change of its seats take it), then every slot of a slotted
 * one in slot order (bookings of a slotted event lock one slot, not the row). Returns the event's id
 * and whether it is slotted, or null when there is no such event.
 */
export async function lockEventForWaitlist(
  em: EntityManager,
  organizationId: string,
  event: { id: string } | { slug: string },
): Promise<{ id: string; slotted: boolean } | null> {
  const [row] =
    'id' in event
      ? await executeOnOrm(em, LOCK_EVENT_BY_ID, { organizationId, id: event.id })
      : await executeOnOrm(em, LOCK_EVENT_BY_SLUG, { organizationId, slug: event.slug });
  if (!row) return null;
  const slotted = Number(row.slots) > 0;
  if (slotted) await lockEventSlots(em, row.id);
  return { id: row.id, slotted };
}

/** Seats in use on an event (SQL, the events row as `e`): its row's confirmed and held seats and its slots' (taken counts both). */
const EVENT_TAKEN = `(e.registration_count + e.held_count + coalesce((select sum(s.taken) from event_slots s where s.event_id = e.id), 0))`;
/** The same for a ticket type (`t`). */
const TYPE_TAKEN = `(t.sold + t.held + coalesce((select sum(u.taken) from ticket_type_slots u where u.ticket_type_id = t.id), 0))`;

/** An event as a join or an offer pass decides on it (read after its locks). */
export interface LockedEvent {
  readonly id: string;
  readonly slug: string;
  readonly status: string;
  readonly endDate: Date;
  /** Seats left as stored (null: no capacity); holds past their expiresAt still count until expired. */
  readonly room: number | null;
  /** Seats of holds past their expiresAt not expired yet (free for clients, D20). */
  readonly lapsed: number;
  readonly offerMinutes: number;
  /** Each ticket type's tickets left as stored, and those of its lapsed holds. */
  readonly ticketTypes: ReadonlyArray<{ id: string; room: number; lapsed: number }>;
}

/** Seats of holds past their expiresAt (`:at`), of the event `e` and `filter`. */
const lapsed = (filter: string) =>
  `coalesce((select sum(b.quantity) from bookings b where b.event_id = e.id ${filter} and b.status = 'HELD' and b.expires_at <= :at::timestamptz), 0)::int`;
const READ_LOCKED_EVENT = sql.statement<
  { at: Date; eventId: string },
  { id: string; slug: string; status: string; end_date: string | Date; room: number | null; lapsed: number; offer_minutes: number; types: Array<{ id: string; room: number; lapsed: number }> }
>(
  'readLockedEvent',
  `select e.id, e.slug, e.status, e.end_date, (e.capacity - ${EVENT_TAKEN})::int as room, ${lapsed('')} as lapsed,
            o.waitlist_offer_minutes as offer_minutes,
            coalesce((select json_agg(json_build_object('id', t.id, 'room', t.quantity - ${TYPE_TAKEN}, 'lapsed', ${lapsed('and b.ticket_type_id = t.id')}))
                        from ticket_types t where t.event_id = e.id), '[]'::json) as types
       from events e join organizations o on o.id = e.organization_id where e.id = :eventId`,
);

/** The event `eventId` with its room and its ticket types' (read after the locks of lockEventForWaitlist), or null. */
export async function readLockedEvent(em: EntityManager, eventId: string, at: Date): Promise<LockedEvent | null> {
  const [row] = await executeOnOrm(em, READ_LOCKED_EVENT, { at, eventId });
  if (!row) return null;
  return {
    id: row.id,
    slug: row.slug,
    status: row.status,
    endDate: new Date(row.end_date),
    room: row.room === null ? null : Number(row.room),
    lapsed: Number(row.lapsed),
    offerMinutes: Number(row.offer_minutes),
    ticketTypes: row.types.map((type) => ({ id: type.id, room: Number(type.room), lapsed: Number(type.lapsed) })),
  };
}

/** A WAITING entry as the offer pass reads it. */
export interface WaitingEntry {
  readonly id: string;
  readonly ticketTypeId: string | null;
  readonly quantity: number;
  readonly attendeeEmail: string;
  readonly attendeeName: string;
  readonly createdAt: Date;
}

const LOCK_WAITING_ENTRIES = sql.statement<
  { eventId: string; room: number | null; limit: number },
  { id: string; ticket_type_id: string | null; quantity: number; attendee_email: string; attendee_name: string; created_at: string | Date }
>(
  'lockWaitingEntries',
  `select id, ticket_type_id, quantity, attendee_email, attendee_name, created_at from waitlist_entries
      where event_id = :eventId and status = 'WAITING' and (:room::int is null or quantity <= :room::int)
      order by created_at, id limit :limit for update`,
);

/**
 * The event's WAITING entries in join order whose seats could fit `room` (null: any), locked (a
 * WAITING entry leaving meanwhile is re-read under the lock and left out): at most `limit`.
 */
export async function lockWaitingEntries(em: EntityManager, eventId: string, room: number | null, limit: number): Promise<WaitingEntry[]> {
  const rows = await executeOnOrm(em, LOCK_WAITING_ENTRIES, { eventId, room, limit });
  return rows.map((row) => ({
    id: row.id,
    ticketTypeId: row.ticket_type_id,
    quantity: Number(row.quantity),
    attendeeEmail: row.attendee_email,
    attendeeName: row.attendee_name,
    createdAt: new Date(row.created_at),
  }));
}

const MARK_OFFERED = sql.family<
  { messages: string },
  { bookingId: string; at: Date; entryId: string; messages: readonly unknown[] },
  { changed: boolean; outbox_written: boolean }
>(
  'markOffered',
  ({ messages }) => `with uw as (
       update waitlist_entries set status = 'OFFERED', offered_booking_id = :bookingId, offered_at = :at::timestamptz, updated_at = :at::timestamptz
        where id = :entryId and status = 'WAITING' returning id),
     ${fragment('messages', messages)}
     select exists (select 1 from uw) as changed, exists (select 1 from outbox_message) as outbox_written`,
  {
    // The outbox CTEs' text (outboxCtes): the same for every offer, their values in `messages`.
    key: ({ messages }) => messages,
    examples: () => ({ 'waitlist.offered': { messages: outboxCtes('org_example', 'waitlist.offered', 'uw', {}).sql } }),
  },
);

/**
 * A WAITING entry made OFFERED with its held booking, and its `waitlist.offered` message (`data`), in
 * one statement. False when it was not WAITING any more.
 */
export async function markOffered(
  em: EntityManager,
  organizationId: string,
  entryId: string,
  bookingId: string,
  at: Date,
  data: object,
): Promise<boolean> {
  const outbox = outboxCtes(organizationId, 'waitlist.offered', 'uw', data);
  const [row] = await executeOnOrm(em, MARK_OFFERED({ messages: outbox.sql }), { bookingId, at, entryId, messages: outbox.bindings });
  if (row.outbox_written) noteOutboxWrite(em);
  return row.changed;
}

/** A new entry's columns. */
interface NewEntry {
  id: string;
  organizationId: string;
  eventId: string;
  ticketTypeId: string | null;
  quantity: number;
  attendeeEmail: string;
  attendeeName: string;
  createdAt: Date;
}

const INSERT_ENTRY = sql.statement<NewEntry>(
  'insertEntry',
  `insert into waitlist_entries (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at, updated_at)
     values (:id, :organizationId, :eventId, :ticketTypeId, :quantity, :attendeeEmail, :attendeeName, 'WAITING', :createdAt, :createdAt)`,
);

/** A new WAITING entry of the event (locked by the caller). */
export async function insertEntry(em: EntityManager, entry: NewEntry): Promise<void> {
  await executeOnOrm(em, INSERT_ENTRY, entry);
}

const TICKET_TYPE_OF_EVENT = sql.statement<{ ticketTypeId: string; eventId: string }, { id: string }>(
  'ticketTypeOfEvent',
  'select id from ticket_types where id = :ticketTypeId and event_id = :eventId',
);

/** Whether the ticket type `ticketTypeId` is one of event `eventId`'s. */
export async function ticketTypeOfEvent(em: EntityManager, eventId: string, ticketTypeId: string): Promise<boolean> {
  const rows = await executeOnOrm(em, TICKET_TYPE_OF_EVENT, { ticketTypeId, eventId });
  return rows.length > 0;
}

const STORED_ENTRY = sql.statement<{ id: string; organizationId: string }, { id: string; event_id: string; status: WaitlistStatus; offered_booking_id: string | null }>(
  'storedEntry',
  'select id, event_id, status, offered_booking_id from waitlist_entries where id = :id and organization_id = :organizationId',
);

/** The organization's entry as stored (status, event, offered booking), or null. */
export async function storedEntry(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<{ id: string; eventId: string; status: WaitlistStatus; offeredBookingId: string | null } | null> {
  const [row] = await executeOnOrm(em, STORED_ENTRY, { id, organizationId });
  return row ? { id: row.id, eventId: row.event_id, status: row.status, offeredBookingId: row.offered_booking_id } : null;
}

const MARK_LEFT = sql.statement<{ at: Date; id: string; from: WaitlistStatus }, { id: string }>(
  'markLeft',
  `update waitlist_entries set status = 'LEFT', updated_at = :at::timestamptz where id = :id and status = :from::text returning id`,
);

/** The entry LEFT, from `from` (WAITING, or OFFERED under the event's locks): one statement; false when it was not `from` any more. */
export async function markLeft(em: EntityManager, id: string, from: WaitlistStatus, at: Date): Promise<boolean> {
  const rows = await executeStatement(em, MARK_LEFT, { at, id, from });
  return rows.length > 0;
}

const EVENTS_WITH_OFFERS_DUE = sql.statement<{ limit: number }, { id: string; organization_id: string }>(
  'eventsWithOffersDue',
  `select e.id, e.organization_id
       from (select distinct event_id from waitlist_entries where status = 'WAITING') w join events e on e.id = w.event_id
      where e.status = 'PUBLISHED' and e.end_date > now()
        and exists (
          select 1 from waitlist_entries x
           where x.event_id = e.id and x.status = 'WAITING'
             and (e.capacity is null or x.quantity <= e.capacity - ${EVENT_TAKEN})
             and (x.ticket_type_id is null or exists (
                   select 1 from ticket_types t where t.id = x.ticket_type_id and x.quantity <= t.quantity - ${TYPE_TAKEN})))
      limit :limit`,
);

/**
 * Events whose WAITING entries fit the seats left now (the safety net of the expiry sweep: seats that
 * came free without an offer pass, after a crash between a change and its offers, say): at most `limit`.
 */
export async function eventsWithOffersDue(em: EntityManager, limit: number): Promise<Array<{ eventId: string; organizationId: string }>> {
  const rows = await executeOnOrm(em, EVENTS_WITH_OFFERS_DUE, { limit });
  return rows.map((row) => ({ eventId: row.id, organizationId: row.organization_id }));
}
