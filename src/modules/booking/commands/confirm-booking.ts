import { AppError } from '../../../foundation/errors/app-error';
import { idErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { hole } from '../../../platform/outbox/outbox';
import { BookingStatus, type BookingEntity } from '../booking.entity';
import { needsConfirming } from '../booking.policy';
import { presentBooking } from '../booking.presenter';
import { findById } from '../booking.repository';
import { changeBooking } from '../booking-transitions.repository';
import { assertBookable } from '../../event/event.policy';
import { effectiveStatus } from '../../event/event-status';
import { noTicketCodes } from '../../../platform/crypto/ticket-codes';

/**
 * Mutation.confirmBooking (D20): a HELD booking before its expiresAt becomes CONFIRMED, its seats moved
 * from the held counts to the confirmed ones, in one statement under the booking's locks
 * (booking-transitions.repository.ts), with its `booking.confirmed` message and its ticket code (D29;
 * a waiting-list offer's too). A booking already CONFIRMED is answered as it is (a retried
 * confirmation is harmless); a hold past its expiresAt is
 * HOLD_EXPIRED even before the sweep stores it EXPIRED; a CANCELLED one is BOOKING_NOT_HELD; a hold
 * whose event no longer takes bookings (unpublished, cancelled, ended) is EVENT_NOT_PUBLISHED, as a
 * booking would be, and stays HELD until it expires.
 */
export async function confirmBooking(scope: UnitOfWorkScope, organizationId: string, id: string): Promise<BookingEntity> {
  assertValidInput(idErrors('id', id, 'bk'));

  return inUnitOfWork(
    scope,
    async (tx) => {
      const found = await findById(tx, organizationId, id);
      const confirmedAt = new Date();
      if (!needsConfirming(found, confirmedAt)) return found;
      const webhookData = presentBooking(
        { ...found, ticketType: found.ticketType, status: BookingStatus.CONFIRMED, confirmedAt },
        { id: found.event.id, slug: hole() },
      );
      // D29: the confirmed booking carries its ticket code from this statement on.
      const ticket = (scope.ticketCodes ?? noTicketCodes()).issue();
      const seats = { id, eventId: found.event.id, slot: found.slot };
      const { changed, booking } = await changeBooking(tx, organizationId, seats, 'confirm', confirmedAt, webhookData, ticket);
      if (!booking) throw AppError.bookingNotFound(id);
      if (changed) booking.ticketCode = ticket.code;
      // Changed meanwhile (confirmed, cancelled or expired by another request): answered from what it is now.
      if (!changed && needsConfirming(booking, confirmedAt)) {
        // Still held: its event no longer takes bookings (unpublished, cancelled or ended since the hold).
        const event = await found.event.loadOrFail();
        assertBookable({ slug: event.slug, status: effectiveStatus(event.storedStatus, event.endDate, confirmedAt) });
        throw new Error(`booking ${id} was not confirmed for no reason the policy knows`);
      }
      return booking;
    },
    { singleStatement: true },
  );
}
