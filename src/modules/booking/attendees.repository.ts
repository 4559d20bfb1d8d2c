import type { PreparedStatements } from '../../platform/db/prepared-statements';

/** One confirmed booking as the attendee export lists it (text as stored, dates as ISO 8601 UTC). */
export interface AttendeeRow {
  id: string;
  attendeeName: string;
  attendeeEmail: string;
  /** The ticket type's name; null when booked without one (or its type was removed). */
  ticketType: string | null;
  quantity: number;
  status: string;
  createdAt: string;
  checkedInAt: string | null;
}

/** Where the next batch starts: after this (created_at, id), to the microsecond the column keeps. */
interface Cursor {
  at: string;
  id: string;
}

/** Rows read per statement: a batch is all the export holds at a time. */
export const ATTENDEE_BATCH_SIZE = 1_000;

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One batch of an event's CONFIRMED bookings in (created_at, id) order, after a cursor (keyset
 * pagination): each batch is one short statement, so no connection or snapshot is held while the
 * client reads what was sent. `cursorAt` keeps microseconds (rows written by SQL may have them).
 */
const BATCH = `select b.id, b.attendee_name as "attendeeName", b.attendee_email as "attendeeEmail", t.name as "ticketType",
    b.quantity, b.status, ${iso('b.created_at')} as "createdAt", ${iso('b.checked_in_at')} as "checkedInAt",
    to_char(b.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "cursorAt"
  from bookings b left join ticket_types t on t.id = b.ticket_type_id
  where b.organization_id = $1 and b.event_id = $2 and b.status = 'CONFIRMED'
    and (b.created_at, b.id) > ($3::text::timestamptz, $4::text)
  order by b.created_at, b.id
  limit $5`;

/**
 * Every CONFIRMED booking of the organization's event `eventId`, oldest first, as batches of at most
 * `batchSize` rows: one statement per batch, the next asked for only when the consumer wants it, so
 * memory holds one batch whatever the event's size. A booking confirmed or cancelled while the export
 * runs is listed or not depending on where the export is (no snapshot spans the batches).
 */
export async function* attendeeBatches(
  db: PreparedStatements,
  organizationId: string,
  eventId: string,
  batchSize: number = ATTENDEE_BATCH_SIZE,
): AsyncGenerator<AttendeeRow[], void, undefined> {
  let cursor: Cursor = { at: '-infinity', id: '' };
  for (;;) {
    const rows = await db.query<AttendeeRow & { cursorAt: string }>(BATCH, [organizationId, eventId, cursor.at, cursor.id, batchSize]);
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    cursor = { at: last.cursorAt, id: last.id };
    yield rows.map(({ cursorAt: _cursor, ...row }) => row);
    if (rows.length < batchSize) return;
  }
}
