import type { ServerResponse } from 'node:http';
import type { AttendeeRow } from '../../modules/booking/attendees.repository';
import { attendeesOf } from '../../modules/booking/attendees.read-model';
import { readsOf, type RequestContext } from '../../platform/graphql/request-context';

/*
 * GET /v1/events/{slug}/attendees.csv (D23): every CONFIRMED booking of the event as CSV (RFC 4180),
 * streamed: the booking module reads batches of 1,000 by (created_at, id), each written to the socket
 * before the next is read, waiting for 'drain' when the client reads slowly. Memory holds one batch,
 * whatever the event's size.
 */

/** The header row, exactly (D23). */
export const ATTENDEES_CSV_COLUMNS = ['id', 'attendeeName', 'attendeeEmail', 'ticketType', 'quantity', 'status', 'createdAt', 'checkedInAt'] as const;

/** RFC 4180 lines end with CRLF. */
const EOL = '\r\n';

/**
 * A cell a spreadsheet would run as a formula (=, +, -, @, or a tab or carriage return first, as
 * OWASP's "CSV Injection" lists them) gets a leading apostrophe: shown as text, never evaluated.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A cell holding a comma, a double quote, CR or LF is quoted, its quotes doubled (RFC 4180, 2.6–2.7). */
const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV cell: neutralized, then quoted when it must be. null is an empty cell. */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line, its CRLF included. */
export function csvLine(cells: ReadonlyArray<string | number | null>): string {
  return cells.map(csvCell).join(',') + EOL;
}

function attendeeLine(row: AttendeeRow): string {
  return csvLine([row.id, row.attendeeName, row.attendeeEmail, row.ticketType, row.quantity, row.status, row.createdAt, row.checkedInAt]);
}

/** Resolves when the response can take more ('drain'), or when it is gone ('close'). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Streams the attendee list of the event `params.slug`. The slug and the event are checked before
 * anything is written (400 VALIDATION_ERROR on `slug`, 404 EVENT_NOT_FOUND, in the envelope); once the
 * first bytes are out, a failure can no longer be an envelope: the connection is cut instead of ended,
 * so a client never takes a truncated file for a whole one, and the error goes on to be logged.
 */
export async function sendAttendeesCsv(res: ServerResponse, context: RequestContext, params: Readonly<Record<string, string>>): Promise<void> {
  const slug = params.slug;
  const batches = await attendeesOf(context.em, readsOf(context), context.auth.organization.id, slug, 'slug');
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  // The slug is checked above: lower-case letters, digits and hyphens, safe inside the quotes.
  res.setHeader('Content-Disposition', `attachment; filename="${slug}-attendees.csv"`);
  // Personal data: not kept by shared caches, nor by the browser once the download is saved.
  res.setHeader('Cache-Control', 'no-store');
  if (res.req.method === 'HEAD') {
    await batches.return();
    res.end();
    return;
  }
  try {
    if (!res.write(csvLine(ATTENDEES_CSV_COLUMNS))) await drained(res);
    for await (const batch of batches) {
      // The client went away: stop reading (breaking out closes the batches).
      if (res.destroyed) break;
      if (!res.write(batch.map(attendeeLine).join(''))) {
        await drained(res);
        if (res.destroyed) break;
      }
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    res.destroy();
    throw error;
  }
}
