import { AppError } from '../../../foundation/errors/app-error';
import { idErrors } from '../../../foundation/validation/arguments';
import type { BookingEntity } from '../booking.entity';
import { BookingStatus } from '../booking.entity';
import { assertCancellable } from '../booking.policy';
import { findById } from '../booking.repository';
import { changeBooking } from '../booking-transitions.repository';
import { hole } from '../../../platform/outbox/outbox';
import { presentBooking } from '../booking.presenter';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { offeringFreedSeats } from '../../waitlist/commands/offer-seats';

/**
 * Mutation.cancelBooking (D7, D20): a CONFIRMED booking, or a HELD one before its expiresAt, gives its
 * seats back, under the same locks, in the same order, as a booking, in one statement
 * (booking-transitions.repository.ts). The booking is read first, without a lock (what a cancellation
 * changes is guarded again under the locks), for its event, its slot and its webhook.
 */
export async function cancelBooking(scope: UnitOfWorkScope, organizationId: string, id: string): Promise<BookingEntity> {
  assertValidInput(idErrors('id', id, 'bk'));

  return inUnitOfWork(
    scope,
    async (tx) => {
      const found = await findById(tx, organizationId, id);
      const cancelledAt = new Date();
      assertCancellable(found, cancelledAt);
      const webhookData = presentBooking(
        { ...found, ticketType: found.ticketType, status: BookingStatus.CANCELLED, cancelledAt },
        { id: found.event.id, slug: hole() },
      );
      // Seats counted in a slot of a slotted event go back to that slot; others to the event's row.
      // With people waiting (D21), in one transaction with the offer of the seats to them.
      const { changed, booking } = await offeringFreedSeats(tx, organizationId, { eventId: found.event.id }, (locked) =>
        changeBooking(locked, organizationId, { id, eventId: found.event.id, slot: found.slot }, 'cancel', cancelledAt, webhookData),
      );
      if (!booking) throw AppError.bookingNotFound(id);
      if (!changed) assertCancellable(booking, cancelledAt); // cancelled or expired meanwhile: the same refusal
      if (!changed) throw new Error(`booking ${id} was not cancelled for no reason the policy knows`);
      return booking;
    },
    { singleStatement: true },
  );
}
