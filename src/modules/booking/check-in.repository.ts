import type { EntityManager } from '@mikro-orm/postgresql';
import { hole, outboxCtes } from '../../platform/outbox/outbox';
import { executePrepared } from '../../platform/db/prepared-statements';
import type { WebhookEventType } from '../webhook/webhook-types';
import { BOOKING_COLUMNS, changeOf, columnsOf, type BookingChange } from './booking-statement';
import type { BookingBody } from './booking.presenter';

/*
 * Check-in at the door (D22): each change is ONE statement (as a booking, D7), which locks the
 * organization's booking, sets or clears `checked_in_at` only where the rule of check-in.policy.ts
 * holds on the locked row, and writes its webhook message in the same statement (so both commit or
 * neither does). Many gates scanning one booking at once queue on the booking's row lock: the first
 * sets it, each later one finds it set and changes nothing. The statement always answers one row, the
 * booking as changed or as found, from which the command works out a refusal (only on that path).
 */

/** JSON text of an SQL value, `null` for NULL (format() would print NULL as nothing). */
export const jsonOf = (expression: string) => `coalesce(to_json(${expression})::text, 'null')`;
/** A timestamp as JSON text the way the API writes dates: ISO 8601 UTC with milliseconds. */
const isoJson = (expression: string) => jsonOf(`to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * The booking as presentBooking shows it, as SQL over the changed row (`g`, with its event's slug as
 * `event_slug`): every field of BookingBody must be named here, so a field added to the presenter
 * fails to compile until the statement writes it too.
 */
const BOOKING_BODY_SQL: { readonly [Field in keyof BookingBody]-?: string } = {
  id: jsonOf('g.id'),
  eventId: jsonOf('g.event_id'),
  eventSlug: jsonOf('g.event_slug'),
  ticketTypeId: jsonOf('g.ticket_type_id'),
  quantity: jsonOf('g.quantity'),
  attendeeEmail: jsonOf('g.attendee_email'),
  attendeeName: jsonOf('g.attendee_name'),
  status: jsonOf('g.status'),
  createdAt: isoJson('g.created_at'),
  cancelledAt: isoJson('g.cancelled_at'),
  expiresAt: isoJson('g.expires_at'),
  confirmedAt: isoJson('g.confirmed_at'),
  checkedInAt: isoJson('g.checked_in_at'),
};

const BODY_FIELDS = Object.keys(BOOKING_BODY_SQL) as Array<keyof BookingBody>;
/** A booking message's data and the SQL that fills it from the changed row `g` (also checkInByCode's, a transfer's and an exchange's, D29). */
export const BODY_DATA = Object.fromEntries(BODY_FIELDS.map((field) => [field, hole()]));
export const BODY_HOLES = BODY_FIELDS.map((field) => BOOKING_BODY_SQL[field]);

/** The booking as changed (`ub`) or, when the statement refused, as found (`b`): the row `r`. */
export const CHANGED_OR_FOUND = `left join lateral (
            select ${BOOKING_COLUMNS.map((column) => `ub.${column}`).join(', ')} where ub.id is not null
            union all
            select ${BOOKING_COLUMNS.map((column) => `b.${column}`).join(', ')} where ub.id is null) r on true`;

/** What each direction sets and when it may: the guard on the locked row (check-in.policy.ts). */
const CHANGES = {
  checkIn: { set: '?::timestamptz', guard: `b.status = 'CONFIRMED' and b.checked_in_at is null`, type: 'booking.checked_in' },
  undo: { set: 'null::timestamptz', guard: `b.status = 'CONFIRMED' and b.checked_in_at is not null`, type: 'booking.check_in_undone' },
} as const satisfies Record<string, { set: string; guard: string; type: WebhookEventType }>;

function statementOf(direction: keyof typeof CHANGES, outboxSql: string): string {
  const { set, guard } = CHANGES[direction];
  return `with
     b as (select k.* from bookings k where k.id = ? and k.organization_id = ? for no key update of k),
     ok as (select b.id, b.event_id from b where ${guard}),
     ub as (
       update bookings k set checked_in_at = ${set}
         from ok join events e on e.id = ok.event_id
        where k.id = ok.id
        returning k.*, e.slug as event_slug),
     ${outboxSql}
   select ${columnsOf('r', 'b', BOOKING_COLUMNS)}, ub.id is not null as changed, exists (select 1 from outbox_message) as outbox_written
     from (select 1) one left join b on true left join ub on true
          ${CHANGED_OR_FOUND}`;
}

/**
 * Checks in (`at` a time) or undoes the check-in (`at` null) of the organization's booking `id` in one
 * statement, with its `booking.checked_in` / `booking.check_in_undone` message. `booking` is null when
 * the organization has no such booking (another organization's included).
 */
export async function changeCheckIn(em: EntityManager, organizationId: string, id: string, at: Date | null): Promise<BookingChange> {
  const direction = at === null ? 'undo' : 'checkIn';
  const outbox = outboxCtes(organizationId, CHANGES[direction].type, 'ub', BODY_DATA, BODY_HOLES);
  const [answer] = await executePrepared<Record<string, unknown>>(em, statementOf(direction, outbox.sql), [
    id, organizationId,
    ...(at === null ? [] : [at]),
    ...outbox.bindings,
  ]);
  return changeOf(em, answer, answer.changed === true);
}
