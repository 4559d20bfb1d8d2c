import { slugErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { noTicketCodes } from '../../../platform/crypto/ticket-codes';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import type { BookingEntity } from '../booking.entity';
import { ticketCodeErrors } from '../booking.inputs';
import { scanTicketCode } from '../check-in-by-code.repository';
import { assertScanAllowed } from '../check-in.policy';

/**
 * Mutation.checkInByCode (D29): the booking whose ticket code a gate of event `eventSlug` scanned is
 * checked in, by the rules of D22, in one statement with its `booking.checked_in` message
 * (check-in-by-code.repository.ts). Any number of gates may scan one code at once: exactly one checks
 * it in, the others answer ALREADY_CHECKED_IN with the winner's time. A code replaced by a transfer
 * answers TICKET_TRANSFERRED before any other check; an unknown code (another organization's
 * included) TICKET_NOT_FOUND; a code of another event WRONG_EVENT.
 */
export function checkInByCode(scope: UnitOfWorkScope, organizationId: string, code: string, eventSlug: string): Promise<BookingEntity> {
  assertValidInput(ticketCodeErrors('code', code), slugErrors('eventSlug', eventSlug));
  const hashes = (scope.ticketCodes ?? noTicketCodes()).lookupHashes(code);
  return inUnitOfWork(
    scope,
    async (tx) => {
      const now = new Date();
      const scan = await scanTicketCode(tx, organizationId, hashes, eventSlug, now);
      if (!scan.changed) assertScanAllowed(scan, eventSlug, now);
      if (!scan.changed || !scan.booking) throw new Error(`a scan at ${eventSlug} checked nothing in for no reason the policy knows`);
      // The scanned event is the booking's: its answer needs no read of it.
      scan.booking.eventSlug = eventSlug;
      return scan.booking;
    },
    { singleStatement: true },
  );
}
