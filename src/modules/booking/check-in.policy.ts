import { AppError } from '../../foundation/errors/app-error';
import { BookingStatus, effectiveBookingStatus } from './booking.entity';
import { TicketErrors } from '../../foundation/errors/ticket-errors';

/*
 * The rules of check-in at the door (docs/decisions/ D22), as pure functions of a booking as found.
 * The check-in statement (check-in.repository.ts) applies the same rules as its guard; these work out
 * which one refused, on the failure path only.
 */

type Found = { status: BookingStatus; expiresAt: Date | null; checkedInAt: Date | null };

/** Only a CONFIRMED booking is checked in, once: BOOKING_NOT_CONFIRMED (HELD, CANCELLED, EXPIRED), ALREADY_CHECKED_IN. */
export function assertCheckInAllowed(booking: Found, now: Date): void {
  const status = effectiveBookingStatus(booking, now);
  if (status !== BookingStatus.CONFIRMED) throw AppError.bookingNotConfirmed(status);
  if (booking.checkedInAt !== null) throw AppError.alreadyCheckedIn(booking.checkedInAt);
}

/** Only a CONFIRMED booking's check-in is undone, and only when there is one: BOOKING_NOT_CONFIRMED, NOT_CHECKED_IN. */
export function assertCheckInUndoable(booking: Found, now: Date): void {
  const status = effectiveBookingStatus(booking, now);
  if (status !== BookingStatus.CONFIRMED) throw AppError.bookingNotConfirmed(status);
  if (booking.checkedInAt === null) throw AppError.notCheckedIn();
}

/**
 * D29: why a scan of a ticket code at the gate of event `eventSlug` checked nothing in, in this order:
 * a superseded code is TICKET_TRANSFERRED before anything else is looked at (the gate says what
 * happened); then EVENT_NOT_FOUND, TICKET_NOT_FOUND (another organization's code included),
 * WRONG_EVENT (naming the ticket's event), then the rules of a check-in by id.
 */
export function assertScanAllowed(
  scan: { supersededAt: Date | null; eventFound: boolean; booking: Found | null; ticketEventSlug: string | null },
  eventSlug: string,
  now: Date,
): void {
  if (scan.supersededAt !== null) throw TicketErrors.ticketTransferred(scan.supersededAt);
  if (!scan.eventFound) throw AppError.eventNotFound(eventSlug);
  if (!scan.booking) throw AppError.ticketNotFound();
  if (scan.ticketEventSlug !== eventSlug) throw TicketErrors.wrongEvent(scan.ticketEventSlug ?? '');
  assertCheckInAllowed(scan.booking, now);
}
