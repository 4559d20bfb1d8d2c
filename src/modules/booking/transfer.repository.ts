import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { outboxCtes } from '../../platform/outbox/outbox';
import { exampleOutbox, OUTBOX_WRITTEN, type WithMessages } from '../event/event-change-statements';
import { BOOKING_COLUMNS, changeOf, columnsOf, type BookingChange } from './booking-statement';
import { BODY_DATA, BODY_HOLES, CHANGED_OR_FOUND } from './check-in.repository';

const sql = sqlStatements(__filename);

/*
 * A transfer's change of attendee (D29): ONE statement that locks the organization's booking, reads
 * its event's start and the organization's transferLockMinutes, and changes the attendee only where
 * the rules of transfer.policy.ts hold on the locked row (CONFIRMED, not checked in, before the lock),
 * with its `booking.transferred` message. It answers the booking as changed or as found, with the
 * attendee it had and what the lock is worked out from. The new code is the command's next statement
 * in the same transaction, under this row lock (ticket-code.repository.ts, replaceTicketCode).
 */

interface TransferRow extends Record<string, unknown> {
  changed: boolean;
  start_date: string | Date | null;
  transfer_lock_minutes: number | null;
  previous_attendee_name: string | null;
  previous_attendee_email: string | null;
  outbox_written: boolean;
}

const TRANSFER = sql.family<
  WithMessages,
  { organizationId: string; id: string; attendeeName: string; attendeeEmail: string; at: Date; messages: readonly unknown[] },
  TransferRow
>(
  'transferBooking',
  ({ messages }) => `with
     b as (select k.* from bookings k where k.organization_id = :organizationId and k.id = :id for no key update of k),
     e as (
       select v.slug, v.start_date, o.transfer_lock_minutes
         from b join events v on v.organization_id = b.organization_id and v.id = b.event_id join organizations o on o.id = b.organization_id),
     ok as (
       select b.id, e.slug from b join e on true
        where b.status = 'CONFIRMED' and b.checked_in_at is null
          and :at::timestamptz < e.start_date - make_interval(mins => e.transfer_lock_minutes)),
     ub as (
       update bookings k set attendee_name = :attendeeName, attendee_email = :attendeeEmail
         from ok where k.organization_id = :organizationId and k.id = ok.id
        returning k.*, ok.slug as event_slug),
     ${fragment('messages', messages)}
   select ${columnsOf('r', 'b', BOOKING_COLUMNS)}, ub.id is not null as changed, e.start_date, e.transfer_lock_minutes,
          b.attendee_name as previous_attendee_name, b.attendee_email as previous_attendee_email, ${OUTBOX_WRITTEN}
     from (select 1) one left join b on true left join e on true left join ub on true
          ${CHANGED_OR_FOUND}`,
  {
    key: (variant) => variant.messages,
    examples: () => ({ 'booking.transferred': { messages: exampleOutbox('booking.transferred', 'ub', BODY_HOLES) } }),
  },
);

/** What a transfer's statement found or changed. */
export interface AttendeeChange extends Pick<BookingChange, 'changed' | 'booking'> {
  /** The attendee before (the booking as found). */
  readonly previous: { readonly attendeeName: string; readonly attendeeEmail: string } | null;
  /** What the lock is worked out from: the event's start and the organization's transferLockMinutes. */
  readonly startDate: Date | null;
  readonly transferLockMinutes: number;
}

/** Gives the organization's booking `id` to another attendee at time `at`, if the rules allow (see above). */
export async function changeAttendee(
  em: EntityManager,
  organizationId: string,
  id: string,
  attendee: { readonly attendeeName: string; readonly attendeeEmail: string },
  at: Date,
): Promise<AttendeeChange> {
  const outbox = outboxCtes(organizationId, 'booking.transferred', 'ub', BODY_DATA, BODY_HOLES);
  const [row] = await executeStatement(em, TRANSFER({ messages: outbox.sql }), { organizationId, id, ...attendee, at, messages: outbox.bindings });
  const { changed, booking } = changeOf(em, row, row.changed);
  return {
    changed,
    booking,
    previous: row.previous_attendee_name === null ? null : { attendeeName: row.previous_attendee_name, attendeeEmail: row.previous_attendee_email ?? '' },
    startDate: row.start_date === null ? null : new Date(row.start_date),
    transferLockMinutes: row.transfer_lock_minutes ?? 0,
  };
}
