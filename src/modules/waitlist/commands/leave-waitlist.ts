import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { idErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork, withinTransaction } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { releaseOfferedSeats } from '../../booking/commands/offer-holds';
import { WaitlistStatus } from '../waitlist-entry.entity';
import { leaveOf } from '../waitlist.policy';
import { entryById } from '../waitlist.read-repository';
import { lockEventForWaitlist, markLeft, storedEntry } from '../waitlist.repository';
import type { WaitlistEntry } from '../waitlist.types';
import { offerSeats } from './offer-seats';

/** Reads of an entry that changed between its read and its change (each: offered, converted or expired meanwhile). */
const MAX_ATTEMPTS = 4;

/**
 * Mutation.leaveWaitlist (D21). A WAITING entry becomes LEFT (one statement). An OFFERED one becomes
 * LEFT too, and its held booking gives its seats back (cancelled; expired when its offer had lapsed
 * already), which are offered on to the next entries: one transaction under the event's locks. LEFT
 * again: answered unchanged. CONVERTED or EXPIRED: WAITLIST_ENTRY_NOT_WAITING. Another organization's
 * entry: WAITLIST_ENTRY_NOT_FOUND, like a missing one.
 */
export async function leaveWaitlist(scope: UnitOfWorkScope, organizationId: string, id: string): Promise<WaitlistEntry> {
  assertValidInput(idErrors('id', id, 'wl'));
  return inUnitOfWork(
    scope,
    async (tx) => {
      const now = new Date();
      for (let attempt = 1; ; attempt += 1) {
        const entry = await storedEntry(tx, organizationId, id);
        if (!entry) throw AppError.waitlistEntryNotFound(id);
        const action = leaveOf(entry);
        const done =
          action === 'unchanged' ||
          (action === 'leave' ? await markLeft(tx, id, WaitlistStatus.WAITING, now) : await leaveOffer(tx, organizationId, entry, now));
        if (done) return (await entryById(tx, organizationId, id, now))!;
        if (attempt === MAX_ATTEMPTS) throw new Error(`waiting-list entry ${id} changed under ${MAX_ATTEMPTS} attempts to leave`);
      }
    },
    { singleStatement: true },
  );
}

/**
 * An OFFERED entry leaves: under the event's locks, it becomes LEFT, its held booking gives the seats
 * back (booking.cancelled, or booking.expired when the offer had lapsed) and they are offered on.
 * False when the entry was not OFFERED any more (confirmed or expired meanwhile).
 */
function leaveOffer(em: EntityManager, organizationId: string, entry: { id: string; eventId: string; offeredBookingId: string | null }, now: Date): Promise<boolean> {
  return withinTransaction(em, async (tx) => {
    await lockEventForWaitlist(tx, organizationId, { id: entry.eventId });
    if (!(await markLeft(tx, entry.id, WaitlistStatus.OFFERED, now))) return false;
    await releaseOfferedSeats(tx, organizationId, entry.offeredBookingId!, now);
    await offerSeats(tx, organizationId, entry.eventId, now);
    return true;
  });
}
