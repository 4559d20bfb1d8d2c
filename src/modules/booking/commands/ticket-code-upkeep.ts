import type { EntityManager } from '@mikro-orm/postgresql';
import type { TicketCodes } from '../../../platform/crypto/ticket-codes';
import { DEFAULT_RESEAL_BATCH, resealInBatches, type ResealTotals } from '../../../platform/crypto/reseal';
import { anyCodelessBooking, giveMissingCodesBatch, resealTicketCodesBatch } from '../ticket-code.repository';

export { anyCodelessBooking };

/*
 * The upkeep of ticket codes (D29) that no request asks for, in short batches while the service serves:
 * codes for the bookings confirmed before D29, and a rotation of the server secret (D24).
 */

/**
 * Gives a code to every CONFIRMED booking that has none (those confirmed before D29: the migration
 * cannot, it has no secret). The service asks at each start (anyCodelessBooking: one probe of an index
 * that is empty once done) and, when there are some, runs this in the background. Until it reaches a booking, that booking's ticketCode reads
 * null and nothing scans it. Rows a request holds are skipped, and found at a later start. Returns how
 * many bookings got one.
 */
export async function issueMissingTicketCodes(em: EntityManager, codes: TicketCodes, batchSize = DEFAULT_RESEAL_BATCH): Promise<number> {
  let given = 0;
  let after: readonly [string, string] | undefined;
  for (;;) {
    const batch = await giveMissingCodesBatch(em, codes, after, batchSize);
    if (batch.last === undefined) return given;
    given += batch.given;
    after = batch.last;
  }
}

/**
 * `admin secret rotate` (D24): every ticket code, current and superseded, sealed and hashed again under
 * the current server secret, `batchSize` rows a transaction. Meanwhile scans find codes under either
 * secret (TicketCodes.lookupHashes). Codes that open under neither are listed by booking id and left
 * as they are: those bookings need a new code (a transfer to the same attendee issues one).
 */
export async function resealTicketCodes(
  em: EntityManager,
  codes: TicketCodes,
  batchSize: number,
  progress: (line: string) => void,
): Promise<{ readonly current: ResealTotals; readonly superseded: ResealTotals }> {
  const current = await resealInBatches('ticket codes', (after: readonly [string, string] | undefined) => resealTicketCodesBatch(em, codes, 'bookings', after, batchSize), progress);
  const superseded = await resealInBatches(
    'superseded ticket codes',
    (after: readonly [string, string] | undefined) => resealTicketCodesBatch(em, codes, 'superseded', after, batchSize),
    progress,
  );
  return { current, superseded };
}
