import { AppError } from '../../foundation/errors/app-error';
import { BookingStatus, effectiveBookingStatus } from './booking.entity';
import { TicketErrors } from '../../foundation/errors/ticket-errors';

/*
 * The rules of a transfer (D29), as pure functions of the booking and its event as found. The transfer
 * statement (transfer.repository.ts) applies the same rules as its guard; assertTransferable works out
 * which one refused, on the failure path only. An exchange is refused by the same rules.
 */

/** When an event's bookings stop changing hands: its start less the organization's transferLockMinutes. */
export function transferLockedAt(startDate: Date, transferLockMinutes: number): Date {
  return new Date(startDate.getTime() - transferLockMinutes * 60_000);
}

/**
 * CONFIRMED only (BOOKING_NOT_CONFIRMED), not checked in (BOOKING_CHECKED_IN), before the lock
 * (TRANSFER_LOCKED, from `lockedAt` on): in this order.
 */
export function assertTransferable(
  booking: { status: BookingStatus; expiresAt: Date | null; checkedInAt: Date | null },
  lockedAt: Date,
  now: Date,
  change: 'transferred' | 'exchanged' = 'transferred',
): void {
  const status = effectiveBookingStatus(booking, now);
  if (status !== BookingStatus.CONFIRMED) throw AppError.bookingNotConfirmed(status, change);
  if (booking.checkedInAt !== null) throw TicketErrors.bookingCheckedIn(booking.checkedInAt);
  if (now >= lockedAt) throw TicketErrors.transferLocked(lockedAt);
}
