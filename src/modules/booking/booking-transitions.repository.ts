import type { EntityManager } from '@mikro-orm/postgresql';
import { outboxCtes } from '../../platform/outbox/outbox';
import { executePrepared, statementText } from '../../platform/db/prepared-statements';
import type { IssuedTicketCode } from '../../platform/crypto/ticket-codes';
import { BookingStatus } from './booking.entity';
import { BOOKING_COLUMNS, CANCELLED_OR_FOUND, changeOf, columnsOf, EVENT_COLUMNS, TICKET_TYPE_COLUMNS, type BookingChange } from './booking-statement';

/*
 * What happens to a booking after it is made (D7, D20), each in ONE statement under the same locks,
 * in the same order, as the booking statement that made it (booking.repository.ts states the rule
 * every such statement follows):
 *
 *   cancel   CONFIRMED, or HELD before its expiresAt → CANCELLED; its seats go back
 *   expire   HELD from its expiresAt on              → EXPIRED;   its seats go back
 *   confirm  HELD before its expiresAt, its event    → CONFIRMED; its seats move from held to confirmed,
 *            still PUBLISHED and not ended                  and it gets its ticket code (D29)
 *
 * A booking that is a waiting-list offer (D21) takes its entry along in the same statement: CONVERTED
 * when confirmed, EXPIRED when cancelled or expired.
 *
 * The time a transition is judged at (`at`, the request's clock) is bound, so a hold is expired or not
 * by the same clock that stamps it. A booking that the gate refuses is answered as found: the command
 * works out why (booking.policy.ts), only on that path.
 */

export type Transition = 'cancel' | 'expire' | 'confirm';

interface TransitionRule {
  /** Which bookings it changes: SQL on the locked booking `b`; `?` is the time it is judged at. */
  readonly gate: string;
  /** Whether the booking's event must still take bookings (PUBLISHED, not ended at that time). */
  readonly bookable: boolean;
  readonly to: BookingStatus;
  /** The column stamped with that time. */
  readonly stamp: 'cancelled_at' | 'confirmed_at' | null;
  /** Whether the seats go back (else they stay taken, now confirmed). */
  readonly frees: boolean;
  readonly webhook: 'booking.cancelled' | 'booking.expired' | 'booking.confirmed';
  /** What the waiting-list entry whose offer this booking is becomes (D21), in the same statement. */
  readonly entry: 'EXPIRED' | 'CONVERTED';
  /** Whether the booking gets its ticket code (D29): a hold confirmed (bound after the stamp). */
  readonly issuesCode: boolean;
}

const RULES: Record<Transition, TransitionRule> = {
  cancel: {
    gate: `(b.status = 'CONFIRMED' or (b.status = 'HELD' and b.expires_at > ?::timestamptz))`,
    to: BookingStatus.CANCELLED,
    stamp: 'cancelled_at',
    frees: true,
    webhook: 'booking.cancelled',
    bookable: false,
    entry: 'EXPIRED',
    issuesCode: false,
  },
  expire: {
    gate: `b.status = 'HELD' and b.expires_at <= ?::timestamptz`,
    to: BookingStatus.EXPIRED,
    stamp: null,
    frees: true,
    webhook: 'booking.expired',
    bookable: false,
    entry: 'EXPIRED',
    issuesCode: false,
  },
  confirm: {
    gate: `b.status = 'HELD' and b.expires_at > ?::timestamptz`,
    to: BookingStatus.CONFIRMED,
    stamp: 'confirmed_at',
    frees: false,
    webhook: 'booking.confirmed',
    bookable: true,
    entry: 'CONVERTED',
    issuesCode: true,
  },
};

/** Where a booking's seats are counted: on its event's row (slot null) or in one slot of it. */
export interface BookingSeats {
  readonly id: string;
  readonly eventId: string;
  readonly slot: number | null;
}

/**
 * Applies `transition` to the organization's booking at time `at`, with its webhook message
 * (`webhookData`, with hole() for the event's slug, read under the lock). A confirmation stores the
 * booking's ticket code (`ticket`, D29). Returns the booking as changed, or as found when the
 * transition does not apply to it (`changed` false).
 */
export function changeBooking(
  em: EntityManager,
  organizationId: string,
  booking: BookingSeats,
  transition: Transition,
  at: Date,
  webhookData: object,
  ticket?: IssuedTicketCode,
): Promise<BookingChange> {
  const rule = RULES[transition];
  if (rule.issuesCode !== (ticket !== undefined)) throw new Error(`a ${transition} of booking ${booking.id} ${rule.issuesCode ? 'needs' : 'takes no'} ticket code (D29)`);
  const set = { at, code: ticket ? [ticket.lookupHash, ticket.sealed] : [] };
  return booking.slot === null
    ? changeOnRow(em, organizationId, booking, rule, set, webhookData)
    : changeInSlot(em, organizationId, { ...booking, slot: booking.slot }, rule, set, webhookData);
}

/** What a transition sets: its time, and a confirmation's ticket code (its hash and sealed form). */
interface Stamps {
  readonly at: Date;
  readonly code: readonly unknown[];
}

const stampOf = (rule: TransitionRule) =>
  `${rule.stamp ? `, ${rule.stamp} = ?::timestamptz` : ''}${rule.issuesCode ? ', ticket_code_hash = ?::text, ticket_code_sealed = ?::text' : ''}`;

/**
 * The waiting-list entry offered this booking (D21), if any: CONVERTED by its confirmation, EXPIRED
 * when it is cancelled or lapses (its seats are then offered on, by the caller's offer pass). A CTE
 * after `ub`; `?` is the time of the change.
 */
const entryOf = (rule: TransitionRule) =>
  `uw as (update waitlist_entries w set status = '${rule.entry}', updated_at = ?::timestamptz from ok where w.offered_booking_id = ok.id and w.status = 'OFFERED'),`;

/**
 * A booking counted on its event's row (booked while the event was not slotted): locks the event, its
 * slot 0 when it has slots, the booking, its ticket type and that type's slot 0. Seats given back to
 * an event slotted since go to slot 0's share, so that the shares still add up to what is left.
 */
async function changeOnRow(
  em: EntityManager,
  organizationId: string,
  booking: BookingSeats,
  rule: TransitionRule,
  { at, code }: Stamps,
  webhookData: object,
): Promise<BookingChange> {
  const outbox = outboxCtes(organizationId, rule.webhook, 'ub', webhookData, ['to_json(g.event_slug)::text']);
  // Confirmed seats leave the confirmed count when freed; held seats leave the held count, and join the
  // confirmed one when confirmed.
  const confirmedDelta = rule.frees ? '- ok.confirmed' : '+ ok.held';
  const sql = statementText(`changeOnRow:${rule.to}`, () => `with
     e as (select * from events where id = ? and organization_id = ? for no key update),
     es as (select s.* from event_slots s join e on s.event_id = e.id where s.slot = 0 for update of s),
     b as (select k.* from bookings k join e on k.event_id = e.id where k.id = ? and k.slot is null for update of k),
     t as (select t.* from ticket_types t join b on t.id = b.ticket_type_id for update of t),
     ts as (select u.* from ticket_type_slots u join t on u.ticket_type_id = t.id where u.slot = 0 for update of u),
     ok as (
       select b.id, b.quantity, b.ticket_type_id, e.slug,
              case when b.status = 'CONFIRMED' then b.quantity else 0 end as confirmed,
              case when b.status = 'HELD' then b.quantity else 0 end as held
         from b join e on true where ${rule.gate}${rule.bookable ? ` and e.status = 'PUBLISHED' and e.end_date > ?::timestamptz` : ''}),
     ${
       rule.frees
         ? `ues as (update event_slots x set seats = es.seats + ok.quantity from ok, es where x.event_id = es.event_id and x.slot = 0 and es.seats is not null),
     uts as (update ticket_type_slots y set seats = ts.seats + ok.quantity from ok, ts where y.ticket_type_id = ts.ticket_type_id and y.slot = 0),`
         : ''
     }
     ub as (
       update bookings k set status = '${rule.to}'${stampOf(rule)}
         from ok where k.id = ok.id returning k.*, ok.slug as event_slug),
     ${entryOf(rule)}
     ue as (
       update events x set registration_count = e.registration_count ${confirmedDelta}, held_count = e.held_count - ok.held, updated_at = ?::timestamptz
         from ok join e on true where x.id = e.id),
     ut as (update ticket_types y set sold = t.sold ${confirmedDelta}, held = t.held - ok.held from ok join t on true where y.id = t.id),
     ${outbox.sql}
   select ${columnsOf('e', 'e', EVENT_COLUMNS)}, ${columnsOf('t', 't', TICKET_TYPE_COLUMNS)}, ${columnsOf('coalesce_b', 'b', BOOKING_COLUMNS)},
          ub.id is not null as changed,
          exists (select 1 from outbox_message) as outbox_written
     from (select 1) one left join e on true left join t on true
          left join b on true left join ub on true
          ${CANCELLED_OR_FOUND}`);
  const [answer] = await executePrepared<Record<string, unknown>>(em, sql, [
    booking.eventId, organizationId,
    booking.id,
    at,
    ...(rule.bookable ? [at] : []),
    ...(rule.stamp ? [at] : []),
    ...code,
    at,
    at,
    ...outbox.bindings,
  ]);
  return changeOf(em, answer, answer.changed === true);
}

/**
 * A booking that holds seats in a slot of its event: locks that event slot, then the booking, then its
 * ticket type's slot of the same number. A slot's `taken` counts held and confirmed seats alike, its
 * `held` the held ones.
 */
async function changeInSlot(
  em: EntityManager,
  organizationId: string,
  booking: BookingSeats & { slot: number },
  rule: TransitionRule,
  { at, code }: Stamps,
  webhookData: object,
): Promise<BookingChange> {
  const outbox = outboxCtes(organizationId, rule.webhook, 'ub', webhookData, ['to_json(g.event_slug)::text']);
  const freed = rule.frees ? '- ok.quantity' : '';
  const sql = statementText(`changeInSlot:${rule.to}`, () => `with
     es as (select s.* from event_slots s where s.event_id = ? and s.slot = ?::smallint for update),
     b as (select k.* from bookings k join es on k.event_id = es.event_id and k.slot = es.slot
            where k.id = ? and k.organization_id = ? for update of k),
     ts as (select u.* from ticket_type_slots u join b on u.ticket_type_id = b.ticket_type_id and u.slot = b.slot for update of u),
     ok as (
       select b.id, b.quantity, b.ticket_type_id, b.slot, b.event_id, case when b.status = 'HELD' then b.quantity else 0 end as held
         from b join es on true where ${rule.gate}${
           // A slotted event that stops taking bookings closes its slots under their locks (closeForBookings).
           rule.bookable ? ` and es.open and exists (select 1 from events v where v.id = b.event_id and v.end_date > ?::timestamptz)` : ''
         }),
     ub as (
       update bookings k set status = '${rule.to}'${stampOf(rule)}
         from ok where k.id = ok.id returning k.*, (select slug from events where id = k.event_id) as event_slug),
     ${entryOf(rule)}
     ues as (update event_slots x set taken = es.taken ${freed}, held = es.held - ok.held from ok join es on true where x.event_id = ok.event_id and x.slot = ok.slot),
     uts as (update ticket_type_slots y set taken = ts.taken ${freed}, held = ts.held - ok.held from ok join ts on true where y.ticket_type_id = ok.ticket_type_id and y.slot = ok.slot),
     ${outbox.sql}
   select ${columnsOf('coalesce_b', 'b', BOOKING_COLUMNS)},
          ub.id is not null as changed,
          exists (select 1 from outbox_message) as outbox_written
     from (select 1) one left join b on true left join ub on true
          ${CANCELLED_OR_FOUND}`);
  const [answer] = await executePrepared<Record<string, unknown>>(em, sql, [
    booking.eventId, booking.slot,
    booking.id, organizationId,
    at,
    ...(rule.bookable ? [at] : []),
    ...(rule.stamp ? [at] : []),
    ...code,
    at,
    ...outbox.bindings,
  ]);
  return changeOf(em, answer, answer.changed === true);
}

/**
 * Holds of the organization's event `eventId` past their expiresAt at `at` and not yet stored EXPIRED
 * (the expiry sweep's work, done at once by a booking that would otherwise be refused): at most `limit`.
 */
export async function dueHoldsOfEvent(em: EntityManager, eventId: string, at: Date, limit: number): Promise<BookingSeats[]> {
  const rows = await em.execute<Array<{ id: string; event_id: string; slot: number | null }>>(
    `select id, event_id, slot from bookings where event_id = ? and status = 'HELD' and expires_at <= ?::timestamptz order by expires_at limit ?`,
    [eventId, at, limit],
  );
  return rows.map((row) => ({ id: row.id, eventId: row.event_id, slot: row.slot === null ? null : Number(row.slot) }));
}

/** Holds of every organization past their expiresAt at `at` (the sweep), oldest first, at most `limit`. */
export async function dueHolds(em: EntityManager, at: Date, limit: number): Promise<Array<BookingSeats & { organizationId: string }>> {
  const rows = await em.execute<Array<{ id: string; organization_id: string; event_id: string; slot: number | null }>>(
    `select id, organization_id, event_id, slot from bookings where status = 'HELD' and expires_at <= ?::timestamptz order by expires_at limit ?`,
    [at, limit],
  );
  return rows.map((row) => ({ id: row.id, organizationId: row.organization_id, eventId: row.event_id, slot: row.slot === null ? null : Number(row.slot) }));
}
