import { AppError } from '../../foundation/errors/app-error';
import { BookingStatus, effectiveBookingStatus } from './booking.entity';
import type { FieldError } from '../../foundation/errors/app-error';

/* Every state rule of a booking (docs/decisions/ D7), as pure functions of the loaded state. */

/**
 * SOLD_OUT when the event's capacity or the ticket type's quantity cannot take `requested` more seats
 * (the tightest limit is named). Nothing is ever sold past either, also under concurrent requests:
 * the caller holds the event's and the ticket type's row locks.
 */
export function assertAvailable(
  event: { capacity: number | null; registrationCount: number },
  ticketType: { id: string; quantity: number; sold: number } | null,
  requested: number,
): void {
  const limits: Array<{ limitedBy: 'capacity' | 'ticketType'; available: number }> = [];
  if (event.capacity !== null) limits.push({ limitedBy: 'capacity', available: event.capacity - event.registrationCount });
  if (ticketType) limits.push({ limitedBy: 'ticketType', available: ticketType.quantity - ticketType.sold });
  const tightest = limits.filter((limit) => limit.available < requested).sort((a, b) => a.available - b.available)[0];
  if (!tightest) return;
  throw AppError.soldOut({
    limitedBy: tightest.limitedBy,
    available: Math.max(0, tightest.available),
    requested,
    ...(tightest.limitedBy === 'ticketType' && ticketType ? { ticketTypeId: ticketType.id } : {}),
  });
}

/** A hold's length: at most the organization's holdMinutes (1 and the type's bounds are the input's own rules). */
export function holdMinutesErrors(holdMinutes: number | null | undefined, organizationHoldMinutes: number): FieldError[] {
  return holdMinutes != null && Number.isInteger(holdMinutes) && holdMinutes > organizationHoldMinutes
    ? [{ field: 'holdMinutes', message: `holdMinutes must be at most ${organizationHoldMinutes} (the organization's holdMinutes)` }]
    : [];
}

type BookingState = { id: string; status: BookingStatus; cancelledAt: Date | null; expiresAt: Date | null };

/**
 * A booking is cancelled once: a second cancel changes nothing and says so. A hold past its expiresAt
 * has given its seats back already: HOLD_EXPIRED (stored EXPIRED or not yet). `now` is the time the
 * request is judged at.
 */
export function assertCancellable(booking: BookingState, now: Date): void {
  const status = effectiveBookingStatus(booking, now);
  if (status === BookingStatus.CANCELLED) throw AppError.bookingAlreadyCancelled(booking.id, booking.cancelledAt);
  if (status === BookingStatus.EXPIRED) throw AppError.holdExpired(booking.id, booking.expiresAt);
}

/**
 * confirmBooking (D20): only a HELD booking before its expiresAt is confirmed. One past it is
 * HOLD_EXPIRED, whether the sweep has stored it EXPIRED yet or not (every EXPIRED booking is a hold
 * that ran out); a CANCELLED one is BOOKING_NOT_HELD. Returns whether there is anything to do: a
 * CONFIRMED booking is answered unchanged (a retried confirmation is harmless).
 */
export function needsConfirming(booking: BookingState, now: Date): boolean {
  const status = effectiveBookingStatus(booking, now);
  if (status === BookingStatus.EXPIRED) throw AppError.holdExpired(booking.id, booking.expiresAt);
  if (status === BookingStatus.CANCELLED) throw AppError.bookingNotHeld(booking.id, status);
  return status === BookingStatus.HELD;
}
