import { AppError } from '../../foundation/errors/app-error';
import { BookingStatus } from './booking.entity';

/* Every state rule of a booking (docs/decisions.md D7), as pure functions of the loaded state. */

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

/** A booking is cancelled once: a second cancel changes nothing and says so. */
export function assertCancellable(booking: { id: string; status: BookingStatus; cancelledAt: Date | null }): void {
  if (booking.status === BookingStatus.CANCELLED) throw AppError.bookingAlreadyCancelled(booking.id, booking.cancelledAt);
}
