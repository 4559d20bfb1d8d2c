import type { EntityManager } from '@mikro-orm/postgresql';
import { outboxCtes } from '../../platform/outbox/outbox';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { exampleOutbox } from '../event/event-change-statements';
import { ROW_SEATS, SLOT_SEATS, type InventoryMode } from '../inventory/inventory-modes.repository';
import type { IssuedTicketCode } from '../../platform/crypto/ticket-codes';
import { BookingStatus } from './booking.entity';
import { BOOKING_COLUMNS, CANCELLED_OR_FOUND, changeOf, columnsOf, type BookingChange } from './booking-statement';

const sql = sqlStatements(__filename);

/*
 * What happens to a booking after it is made (D7, D20), each in ONE statement under the same locks,
 * in the same order, as the booking statement that made it (booking.repository.ts states the rule
 * every such statement follows), in the inventory mode its seats are counted in: on its event's row
 * (its `slot` null) or in one slot of its event (src/modules/inventory/inventory-modes.repository.ts):
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
  /** Which bookings it changes: SQL on the locked booking `b`; `:at` is the time it is judged at. */
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
  /** Whether the booking gets its ticket code (D29): a hold confirmed. */
  readonly issuesCode: boolean;
}

const RULES: Record<Transition, TransitionRule> = {
  cancel: {
    gate: `(b.status = 'CONFIRMED' or (b.status = 'HELD' and b.expires_at > :at::timestamptz))`,
    to: BookingStatus.CANCELLED,
    stamp: 'cancelled_at',
    frees: true,
    webhook: 'booking.cancelled',
    bookable: false,
    entry: 'EXPIRED',
    issuesCode: false,
  },
  expire: {
    gate: `b.status = 'HELD' and b.expires_at <= :at::timestamptz`,
    to: BookingStatus.EXPIRED,
    stamp: null,
    frees: true,
    webhook: 'booking.expired',
    bookable: false,
    entry: 'EXPIRED',
    issuesCode: false,
  },
  confirm: {
    gate: `b.status = 'HELD' and b.expires_at > :at::timestamptz`,
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

/** The webhook message's holes: the booking's event's slug, read with the changed booking (`ub`). */
const MESSAGE_HOLES = ['to_json(g.event_slug)::text'];

interface ChangeVariant {
  readonly mode: 'row' | 'slot';
  readonly transition: Transition;
  /** The outbox CTEs over `ub` (constant per transition). */
  readonly messages: string;
}

const MODES: Record<ChangeVariant['mode'], InventoryMode> = { row: ROW_SEATS, slot: SLOT_SEATS };

/**
 * The waiting-list entry offered this booking (D21), if any: CONVERTED by its confirmation, EXPIRED
 * when it is cancelled or lapses (its seats are then offered on, by the caller's offer pass).
 */
const entryOf = (rule: TransitionRule) =>
  `uw as (update waitlist_entries w set status = '${rule.entry}', updated_at = :at::timestamptz from ok where w.offered_booking_id = ok.id and w.status = 'OFFERED')`;

/**
 * A transition in one mode: locks where the booking's seats are counted, the booking's row in
 * between (InventoryMode.lockBooked), changes the booking where the rule's gate holds on the locked
 * row, gives its seats back or moves them to confirmed, and writes its message.
 */
const CHANGE = sql.family<ChangeVariant, { eventId: string; slot: number | null; id: string; organizationId: string; at: Date; ticketCodeHash: string | null; ticketCodeSealed: string | null; messages: readonly unknown[] }>(
  'changeBooking',
  ({ mode, transition, messages }) => {
    const seats = MODES[mode];
    const rule = RULES[transition];
    const change = { confirmed: 'ok.confirmed', held: 'ok.held', at: ':at::timestamptz' };
    return `with ${seats.lockBooked('', { id: ':id', organizationId: ':organizationId', eventId: ':eventId', slot: ':slot::smallint', booking: 'b' })},
     ok as (
       select b.id, case when b.status = 'CONFIRMED' then b.quantity else 0 end as confirmed, case when b.status = 'HELD' then b.quantity else 0 end as held
         from b where ${rule.gate}${rule.bookable ? ` and ${seats.takesBookings('', ':at::timestamptz')}` : ''}),
     ${rule.frees ? seats.release('', 'ok', change) : seats.confirm('', 'ok', change)},
     ub as (
       update bookings k set status = '${rule.to}'${rule.stamp ? `, ${rule.stamp} = :at::timestamptz` : ''}${rule.issuesCode ? ', ticket_code_hash = :ticketCodeHash::text, ticket_code_sealed = :ticketCodeSealed::text' : ''}
         from ok where k.id = ok.id returning k.*, (select slug from events where id = k.event_id) as event_slug),
     ${entryOf(rule)},
     ${fragment('messages', messages)}
   select ${columnsOf('coalesce_b', 'b', BOOKING_COLUMNS)}, ub.id is not null as changed, exists (select 1 from outbox_message) as outbox_written
     from (select 1) one left join b on true left join ub on true
          ${CANCELLED_OR_FOUND}`;
  },
  {
    key: ({ mode, transition }) => `${mode}:${transition}`,
    examples: () =>
      Object.fromEntries(
        (['row', 'slot'] as const).flatMap((mode) =>
          (Object.keys(RULES) as Transition[]).map((transition) => [
            `${transition}, ${mode === 'row' ? 'counted on its event\'s row' : 'in a slot'}`,
            { mode, transition, messages: exampleOutbox(RULES[transition].webhook, 'ub', MESSAGE_HOLES) },
          ]),
        ),
      ),
  },
);

/**
 * Applies `transition` to the organization's booking at time `at`, with its webhook message
 * (`webhookData`, with hole() for the event's slug, read with the change). Returns the booking as
 * changed, or as found when the transition does not apply to it (`changed` false). A confirmation
 * stores the booking's ticket code (`ticket`, D29). Its mode is the
 * booking's own: its slot, set when it was made and never changed.
 */
export async function changeBooking(
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
  const messages = outboxCtes(organizationId, RULES[transition].webhook, 'ub', webhookData, MESSAGE_HOLES);
  const statement = CHANGE({ mode: booking.slot === null ? 'row' : 'slot', transition, messages: messages.sql });
  const [answer] = await executeStatement(em, statement, {
    eventId: booking.eventId,
    slot: booking.slot,
    id: booking.id,
    organizationId,
    at,
    ticketCodeHash: ticket?.lookupHash ?? null,
    ticketCodeSealed: ticket?.sealed ?? null,
    messages: messages.bindings,
  });
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
