import { AppError } from './app-error';

/**
 * Errors of tickets that change hands (D29): a named constructor per code, as AppError's own
 * (app-error.ts), kept beside them as the queue's are (queue-errors.ts).
 */
export const TicketErrors = {
  wrongEvent(eventSlug: string): AppError {
    return new AppError('WRONG_EVENT', `This ticket is for another event: ${eventSlug}`, { eventSlug });
  },
  ticketTransferred(at: Date): AppError {
    return new AppError('TICKET_TRANSFERRED', `This code was replaced at ${at.toISOString()}: the ticket was transferred or exchanged, and has a new code`, { transferredAt: at.toISOString() });
  },
  bookingCheckedIn(checkedInAt: Date): AppError {
    return new AppError('BOOKING_CHECKED_IN', `This booking was checked in at ${checkedInAt.toISOString()}; it can no longer be transferred or exchanged`, { checkedInAt: checkedInAt.toISOString() });
  },
  transferLocked(lockedAt: Date): AppError {
    return new AppError('TRANSFER_LOCKED', `Transfers and exchanges of this event's bookings stopped at ${lockedAt.toISOString()}`, { lockedAt: lockedAt.toISOString() });
  },
};
