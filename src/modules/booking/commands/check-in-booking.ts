import { AppError } from '../../../foundation/errors/app-error';
import { idErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import type { BookingEntity } from '../booking.entity';
import { changeCheckIn } from '../check-in.repository';
import { assertCheckInAllowed, assertCheckInUndoable } from '../check-in.policy';

/**
 * Mutation.checkInBooking (D22): records `checkedInAt` on a CONFIRMED booking not checked in yet, in
 * one statement with its `booking.checked_in` message. Any number of gates may scan the same booking
 * at once: the statement locks the booking's row, so exactly one sets it and the others find it set
 * (409 ALREADY_CHECKED_IN with the winner's time).
 */
export function checkInBooking(scope: UnitOfWorkScope, organizationId: string, id: string): Promise<BookingEntity> {
  assertValidInput(idErrors('id', id, 'bk'));
  return inUnitOfWork(
    scope,
    async (tx) => {
      const now = new Date();
      const { changed, booking } = await changeCheckIn(tx, organizationId, id, now);
      if (!booking) throw AppError.bookingNotFound(id);
      if (!changed) assertCheckInAllowed(booking, now);
      if (!changed) throw new Error(`booking ${id} was not checked in for no reason the policy knows`);
      return booking;
    },
    { singleStatement: true },
  );
}

/**
 * Mutation.undoCheckIn (D22): clears `checkedInAt` of a CONFIRMED, checked-in booking (a scan at the
 * wrong gate, say), in one statement with its `booking.check_in_undone` message; 409 NOT_CHECKED_IN
 * when there is nothing to undo.
 */
export function undoCheckIn(scope: UnitOfWorkScope, organizationId: string, id: string): Promise<BookingEntity> {
  assertValidInput(idErrors('id', id, 'bk'));
  return inUnitOfWork(
    scope,
    async (tx) => {
      const { changed, booking } = await changeCheckIn(tx, organizationId, id, null);
      if (!booking) throw AppError.bookingNotFound(id);
      if (!changed) assertCheckInUndoable(booking, new Date());
      if (!changed) throw new Error(`booking ${id}'s check-in was not undone for no reason the policy knows`);
      return booking;
    },
    { singleStatement: true },
  );
}
