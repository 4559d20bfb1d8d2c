import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStatement } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import { outboxCtes } from '../../platform/outbox/outbox';
import { exampleOutbox, OUTBOX_WRITTEN, type WithMessages } from '../event/event-change-statements';
import type { BookingEntity } from './booking.entity';
import { BOOKING_COLUMNS, changeOf, columnsOf } from './booking-statement';
import { BODY_DATA, BODY_HOLES, CHANGED_OR_FOUND } from './check-in.repository';

const sql = sqlStatements(__filename);

/*
 * Check-in by ticket code (D29 over D22): ONE statement, like a check-in by id (check-in.repository.ts).
 * It looks the code up by its hashes (the current secret's and, during a rotation, the previous one's)
 * among the organization's superseded codes first and, only when it is none of them, among its
 * bookings, locking the booking it finds; it checks it in only when that booking is of the scanned
 * event, CONFIRMED and not checked in yet, with its `booking.checked_in` message. Gates scanning one
 * code at once queue on the booking's row lock: the first checks it in, each later one finds it
 * checked in. The statement always answers one row, from which the command works out a refusal
 * (check-in.policy.ts), on that path only.
 */

interface ScanRow extends Record<string, unknown> {
  changed: boolean;
  superseded_at: string | null;
  event_found: boolean;
  ticket_event_slug: string | null;
  outbox_written: boolean;
}

const SCAN = sql.family<
  WithMessages,
  { organizationId: string; current: string; previous: string; eventSlug: string; at: Date; messages: readonly unknown[] },
  ScanRow
>(
  'checkInByCode',
  ({ messages }) => `with
     superseded as (
       select s.superseded_at from superseded_ticket_codes s
        where s.organization_id = :organizationId and s.code_hash in (:current::text, :previous::text)
        order by s.superseded_at desc limit 1),
     ev as (select v.id from events v where v.organization_id = :organizationId and v.slug = :eventSlug),
     b as (
       select k.* from bookings k
        where k.organization_id = :organizationId and k.ticket_code_hash in (:current::text, :previous::text)
          and not exists (select 1 from superseded)
        for no key update of k),
     ok as (select b.id, b.event_id from b join ev on ev.id = b.event_id where b.status = 'CONFIRMED' and b.checked_in_at is null),
     ub as (
       update bookings k set checked_in_at = :at::timestamptz
         from ok join events e on e.organization_id = :organizationId and e.id = ok.event_id
        where k.organization_id = :organizationId and k.id = ok.id
        returning k.*, e.slug as event_slug),
     ${fragment('messages', messages)}
   select ${columnsOf('r', 'b', BOOKING_COLUMNS)}, ub.id is not null as changed, superseded.superseded_at, ev.id is not null as event_found,
          (select v.slug from events v where v.organization_id = :organizationId and v.id = b.event_id) as ticket_event_slug, ${OUTBOX_WRITTEN}
     from (select 1) one left join superseded on true left join ev on true left join b on true left join ub on true
          ${CHANGED_OR_FOUND}`,
  {
    key: (variant) => variant.messages,
    examples: () => ({ 'booking.checked_in': { messages: exampleOutbox('booking.checked_in', 'ub', BODY_HOLES) } }),
  },
);

/** What a scan found: the booking checked in, or what stood in its way. */
export interface Scan {
  readonly changed: boolean;
  /** The booking the code is the current code of (as changed, or as found); null when none is. */
  readonly booking: BookingEntity | null;
  /** When the code was replaced, when it is a superseded one (then nothing else was looked at). */
  readonly supersededAt: Date | null;
  readonly eventFound: boolean;
  /** The slug of the found booking's event. */
  readonly ticketEventSlug: string | null;
}

/**
 * Scans the code whose look-up hashes are `hashes` (TicketCodes.lookupHashes) at the gate of the
 * organization's event `eventSlug`, at time `at`: one statement (see above).
 */
export async function scanTicketCode(
  em: EntityManager,
  organizationId: string,
  hashes: readonly [current: string, previous: string],
  eventSlug: string,
  at: Date,
): Promise<Scan> {
  const outbox = outboxCtes(organizationId, 'booking.checked_in', 'ub', BODY_DATA, BODY_HOLES);
  const [row] = await executeStatement(em, SCAN({ messages: outbox.sql }), {
    organizationId,
    current: hashes[0],
    previous: hashes[1],
    eventSlug,
    at,
    messages: outbox.bindings,
  });
  const { booking } = changeOf(em, row, row.changed);
  return {
    changed: row.changed,
    booking,
    supersededAt: row.superseded_at === null ? null : new Date(row.superseded_at),
    eventFound: row.event_found,
    ticketEventSlug: row.ticket_event_slug,
  };
}
