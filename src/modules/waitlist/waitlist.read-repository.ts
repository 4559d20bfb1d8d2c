import type { EntityManager } from '@mikro-orm/postgresql';
import type { ListPosition } from '../../platform/db/list-position';
import { executeStatement } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import { WaitlistStatus } from './waitlist-entry.entity';
import type { WaitlistEntry } from './waitlist.types';

/*
 * Waiting-list entries as clients see them (D21): one entry, a page of an event's list. Organization
 * first, as in waitlist.repository.ts, which holds the locks and the changes.
 */

const sql = sqlStatements(__filename);

/** An entry's columns as the API shows them (`w` the entry, `e` its event, `b` its offered booking; `:at` the time read at). */
const ENTRY_COLUMNS = `w.id, w.event_id, e.slug as event_slug, w.ticket_type_id, w.quantity, w.attendee_email, w.attendee_name,
       case when w.status = 'OFFERED' and b.status = 'HELD' and b.expires_at <= :at::timestamptz then 'EXPIRED' else w.status end as status,
       w.created_at, w.offered_booking_id, w.offered_at, b.expires_at as offer_expires_at`;

interface EntryRow {
  id: string;
  event_id: string;
  event_slug: string;
  ticket_type_id: string | null;
  quantity: number;
  attendee_email: string;
  attendee_name: string;
  status: WaitlistStatus;
  created_at: string | Date;
  offered_booking_id: string | null;
  offered_at: string | Date | null;
  offer_expires_at: string | Date | null;
  position: number | string | null;
}

const date = (value: string | Date | null): Date | null => (value === null ? null : new Date(value));

function entryOf(row: EntryRow): WaitlistEntry {
  return {
    id: row.id,
    eventId: row.event_id,
    eventSlug: row.event_slug,
    ticketTypeId: row.ticket_type_id,
    quantity: Number(row.quantity),
    attendeeEmail: row.attendee_email,
    attendeeName: row.attendee_name,
    status: row.status,
    position: row.position === null ? null : Number(row.position),
    createdAt: new Date(row.created_at),
    offeredBookingId: row.offered_booking_id,
    offeredAt: date(row.offered_at),
    offerExpiresAt: date(row.offer_expires_at),
  };
}

const ENTRY_BY_ID = sql.statement<{ at: Date; id: string; organizationId: string }, EntryRow>(
  'entryById',
  `select ${ENTRY_COLUMNS},
            case when w.status = 'WAITING' then (
              select count(*) from waitlist_entries x
               where x.event_id = w.event_id and x.status = 'WAITING' and (x.created_at, x.id) <= (w.created_at, w.id)) end as position
       from waitlist_entries w join events e on e.id = w.event_id left join bookings b on b.id = w.offered_booking_id
      where w.id = :id and w.organization_id = :organizationId`,
);

/** The organization's entry `id` as clients see it (its position among the WAITING ones), or null. */
export async function entryById(em: EntityManager, organizationId: string, id: string, at: Date): Promise<WaitlistEntry | null> {
  const [row] = await executeStatement(em, ENTRY_BY_ID, { at, id, organizationId });
  return row ? entryOf(row) : null;
}

const ENTRY_PAGE = sql.statement<
  { eventId: string; at: Date; status: WaitlistStatus | null; sortKey: string | null; afterId: string | null; limit: number; offset: number },
  EntryRow & { total: string | number; sort_key: string }
>(
  'entryPage',
  `with waiting as (
       select id, row_number() over (order by created_at, id) as position from waitlist_entries where event_id = :eventId and status = 'WAITING'),
     listed as (
       select ${ENTRY_COLUMNS}, wt.position
         from waitlist_entries w join events e on e.id = w.event_id left join bookings b on b.id = w.offered_booking_id
              left join waiting wt on wt.id = w.id
        where w.event_id = :eventId),
     filtered as (select * from listed where :status::text is null or status = :status::text)
     select p.*, t.total from (select count(*) as total from filtered) t
       left join lateral (
         select *, (extract(epoch from created_at) * 1000000)::bigint::text as sort_key from filtered
          where :sortKey::bigint is null or (created_at, id) > ('epoch'::timestamptz + :sortKey::bigint * interval '1 microsecond', :afterId::text)
          order by created_at, id limit :limit offset :offset) p on true`,
);

/**
 * One page of an event's entries in join order (optionally of one status as clients read it), their
 * total, and the position of the page's last entry when another page follows. A cursor page (D25)
 * starts after `after` (join time in microseconds since the epoch, and id) instead of at an offset.
 */
export async function entryPage(
  em: EntityManager,
  eventId: string,
  query: { page: number; limit: number; status: WaitlistStatus | null; after: ListPosition | null },
  at: Date,
): Promise<{ entries: WaitlistEntry[]; total: number; next: ListPosition | null }> {
  const { after } = query;
  const rows = await executeStatement(em, ENTRY_PAGE, {
    eventId,
    at,
    status: query.status,
    sortKey: after?.[0] ?? null,
    afterId: after?.[1] ?? null,
    limit: query.limit + 1,
    offset: after ? 0 : (query.page - 1) * query.limit,
  });
  const total = rows.length > 0 ? Number(rows[0].total) : 0;
  const listed = rows.filter((row) => row.id != null);
  const onPage = listed.slice(0, query.limit);
  const last = onPage[onPage.length - 1];
  return { entries: onPage.map(entryOf), total, next: listed.length > query.limit ? [last.sort_key, last.id] : null };
}

// ---- Whether a change that frees seats has anyone to offer them to -------------------------------
