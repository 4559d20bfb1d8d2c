import type { EntityManager } from '@mikro-orm/postgresql';
import type { IssuedTicketCode, TicketCodes } from '../../platform/crypto/ticket-codes';
import type { ResealBatch } from '../../platform/crypto/reseal';
import { executeOnOrm, executeStatement } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import type { BookingEntity } from './booking.entity';
import { BOOKING_COLUMNS, changeOf, columnsOf } from './booking-statement';

const sql = sqlStatements(__filename);

/*
 * The stored side of ticket codes (D29; the codes themselves: src/platform/crypto/ticket-codes.ts). A
 * booking's current code is two columns of its row (`ticket_code_hash`, `ticket_code_sealed`); a code
 * replaced by a transfer or an exchange moves to `superseded_ticket_codes`, where a scan still finds
 * it (TICKET_TRANSFERRED). Codes are issued by the statement that confirms a booking (a booking made
 * CONFIRMED, a hold confirmed), replaced here, given here to bookings confirmed before D29, and sealed
 * and hashed again here under a new server secret (`admin secret rotate`).
 */

export type SupersededBecause = 'TRANSFER' | 'EXCHANGE';

const REPLACE = sql.statement<
  { organizationId: string; bookingId: string; lookupHash: string; sealed: string; reason: SupersededBecause; at: Date },
  Record<string, unknown>
>(
  'replaceTicketCode',
  `with
     b as (
       select k.organization_id, k.id, k.ticket_code_hash, k.ticket_code_sealed from bookings k
        where k.organization_id = :organizationId and k.id = :bookingId for no key update of k),
     superseded as (
       insert into superseded_ticket_codes (organization_id, code_hash, booking_id, sealed_code, reason, superseded_at)
       select b.organization_id, b.ticket_code_hash, b.id, b.ticket_code_sealed, :reason, :at::timestamptz from b where b.ticket_code_hash is not null),
     ub as (
       update bookings k set ticket_code_hash = :lookupHash, ticket_code_sealed = :sealed
         from b where k.organization_id = b.organization_id and k.id = b.id
        returning k.*)
   select ${columnsOf('ub', 'b', BOOKING_COLUMNS)} from ub`,
);

/**
 * Gives the organization's booking `bookingId` the code `ticket` and supersedes the one it had (at
 * `at`, for `reason`), so that a scan of the old code answers TICKET_TRANSFERRED: one statement, inside
 * the caller's transaction (`tx`), which locks the booking's row if the caller has not. Returns the
 * booking as changed (its code in clear with it), or null when the organization has no such booking.
 */
export async function replaceTicketCode(
  tx: EntityManager,
  organizationId: string,
  bookingId: string,
  ticket: IssuedTicketCode,
  reason: SupersededBecause,
  at: Date,
): Promise<BookingEntity | null> {
  const [row] = await executeStatement(tx, REPLACE, { organizationId, bookingId, lookupHash: ticket.lookupHash, sealed: ticket.sealed, reason, at });
  if (!row) return null;
  const { booking } = changeOf(tx, row, true);
  if (booking) booking.ticketCode = ticket.code;
  return booking;
}

// ---- Bookings confirmed before D29: codes given by the service, which holds the secret ----------

type BookingKey = readonly [organizationId: string, id: string];

const ANY_CODELESS = sql.statement<Record<string, never>, { any: boolean }>(
  'anyCodelessConfirmedBooking',
  `select exists (select 1 from bookings where status = 'CONFIRMED' and ticket_code_hash is null) as any`,
);

/** Whether a CONFIRMED booking has no code (one probe of an index that is empty once they all have one). */
export async function anyCodelessBooking(em: EntityManager): Promise<boolean> {
  const [row] = await executeOnOrm(em, ANY_CODELESS, {});
  return row.any;
}

const CODELESS = sql.statement<{ afterOrganization: string; afterId: string; limit: number }, { organization_id: string; id: string }>(
  'codelessConfirmedBookings',
  `select organization_id, id from bookings
    where status = 'CONFIRMED' and ticket_code_hash is null and (organization_id, id) > (:afterOrganization, :afterId)
    order by organization_id, id limit :limit for update skip locked`,
);

const GIVE_CODES = sql.statement<{ codes: string }>(
  'giveTicketCodes',
  `update bookings k set ticket_code_hash = v.lookup_hash, ticket_code_sealed = v.sealed
     from jsonb_to_recordset(:codes::jsonb) as v(organization_id text, id text, lookup_hash text, sealed text)
    where k.organization_id = v.organization_id and k.id = v.id and k.ticket_code_hash is null`,
);

/**
 * One batch of CONFIRMED bookings without a code after `after` (key order), locked (skipping those a
 * request holds), each given a new code: one short transaction. Returns how many, and the last key.
 */
export async function giveMissingCodesBatch(
  em: EntityManager,
  codes: TicketCodes,
  after: BookingKey | undefined,
  limit: number,
): Promise<{ readonly given: number; readonly last: BookingKey | undefined }> {
  return em.fork().transactional(async (tx) => {
    const rows = await executeOnOrm(tx, CODELESS, { afterOrganization: after?.[0] ?? '', afterId: after?.[1] ?? '', limit });
    if (rows.length === 0) return { given: 0, last: undefined };
    const given = rows.map((row) => {
      const { lookupHash, sealed } = codes.issue();
      return { organization_id: row.organization_id, id: row.id, lookup_hash: lookupHash, sealed };
    });
    await executeOnOrm(tx, GIVE_CODES, { codes: JSON.stringify(given) });
    const last = rows[rows.length - 1];
    return { given: rows.length, last: [last.organization_id, last.id] as const };
  });
}

// ---- A rotation of the server secret (D24): codes sealed and hashed again under the new value ---

const SEALED_BOOKING_CODES = sql.statement<
  { afterOrganization: string; afterId: string; current: string; limit: number },
  { organization_id: string; id: string; booking_id: string; sealed: string }
>(
  'sealedBookingCodes',
  `select organization_id, id, id as booking_id, ticket_code_sealed as sealed from bookings
    where (organization_id, id) > (:afterOrganization, :afterId) and ticket_code_sealed is not null and ticket_code_sealed not like :current
    order by organization_id, id limit :limit for update skip locked`,
);

const WRITE_BOOKING_CODES = sql.statement<{ changed: string }>(
  'writeBookingCodes',
  `update bookings k set ticket_code_hash = v.lookup_hash, ticket_code_sealed = v.sealed
     from jsonb_to_recordset(:changed::jsonb) as v(organization_id text, key text, lookup_hash text, sealed text)
    where k.organization_id = v.organization_id and k.id = v.key`,
);

const SEALED_SUPERSEDED_CODES = sql.statement<
  { afterOrganization: string; afterId: string; current: string; limit: number },
  { organization_id: string; id: string; booking_id: string; sealed: string }
>(
  'sealedSupersededCodes',
  `select organization_id, code_hash as id, booking_id, sealed_code as sealed from superseded_ticket_codes
    where (organization_id, code_hash) > (:afterOrganization, :afterId) and sealed_code not like :current
    order by organization_id, code_hash limit :limit for update skip locked`,
);

const WRITE_SUPERSEDED_CODES = sql.statement<{ changed: string }>(
  'writeSupersededCodes',
  `update superseded_ticket_codes s set code_hash = v.lookup_hash, sealed_code = v.sealed
     from jsonb_to_recordset(:changed::jsonb) as v(organization_id text, key text, lookup_hash text, sealed text)
    where s.organization_id = v.organization_id and s.code_hash = v.key`,
);

const TABLES = {
  bookings: { read: SEALED_BOOKING_CODES, write: WRITE_BOOKING_CODES },
  superseded: { read: SEALED_SUPERSEDED_CODES, write: WRITE_SUPERSEDED_CODES },
} as const;

/**
 * One batch of `admin secret rotate` (D24) over the current codes (`bookings`) or the superseded ones:
 * the codes after `after` (key order) not sealed under the current secret, locked (skipping those a
 * request holds), sealed and hashed again under it, written back in one statement. Returns the ids
 * of the bookings whose code opens under neither secret (left as it is; it no longer scans).
 */
export async function resealTicketCodesBatch(
  em: EntityManager,
  codes: TicketCodes,
  table: keyof typeof TABLES,
  after: BookingKey | undefined,
  limit: number,
): Promise<ResealBatch<BookingKey>> {
  const { read, write } = TABLES[table];
  return em.fork().transactional(async (tx) => {
    const rows = await executeOnOrm(tx, read, { afterOrganization: after?.[0] ?? '', afterId: after?.[1] ?? '', current: codes.sealedUnderCurrentPattern(), limit });
    const unreadable: string[] = [];
    const changed: Array<{ organization_id: string; key: string; lookup_hash: string; sealed: string }> = [];
    for (const row of rows) {
      const reissued = codes.reissued(row.sealed);
      if (reissued === undefined) unreadable.push(row.booking_id);
      else changed.push({ organization_id: row.organization_id, key: row.id, lookup_hash: reissued.lookupHash, sealed: reissued.sealed });
    }
    if (changed.length > 0) await executeOnOrm(tx, write, { changed: JSON.stringify(changed) });
    const last = rows.at(-1);
    return { resealed: changed.length, unreadable, last: last === undefined ? undefined : ([last.organization_id, last.id] as const) };
  });
}
