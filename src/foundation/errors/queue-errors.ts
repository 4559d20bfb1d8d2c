import { AppError, echo } from './app-error';

/**
 * The on-sale queue's errors (D30): a named constructor per code, as AppError's own (app-error.ts), kept
 * beside them so that file stays one sitting's read.
 */
export const QueueErrors = {
  queueEntryNotFound(id: string): AppError {
    return new AppError('QUEUE_ENTRY_NOT_FOUND', `No queue entry with id "${echo(id)}"`, { id: echo(id) });
  },
  queueNotEnabled(eventSlug: string): AppError {
    return new AppError('QUEUE_NOT_ENABLED', "This event's queue is not enabled", { eventSlug: echo(eventSlug) });
  },
  queueNotOpen(opensAt: Date): AppError {
    return new AppError('QUEUE_NOT_OPEN', `The queue opens at ${opensAt.toISOString()}`, { opensAt: opensAt.toISOString() });
  },
  queueSoldOut(soldOutAt: Date | null): AppError {
    return new AppError('SOLD_OUT', 'Sold out: no seat is left for anyone in the queue', { queue: 'SOLD_OUT', soldOutAt: soldOutAt?.toISOString() ?? null });
  },
  notOnSale(onSaleAt: Date): AppError {
    return new AppError('NOT_ON_SALE', `This event is on sale from ${onSaleAt.toISOString()}`, { onSaleAt: onSaleAt.toISOString() });
  },
  queueRequired(eventSlug: string): AppError {
    return new AppError('QUEUE_REQUIRED', 'Bookings of this event go through its queue: book with the queueEntryId of an admitted entry', { eventSlug: echo(eventSlug) });
  },
  notAdmitted(id: string, status: string, position: number | null): AppError {
    const where = position === null ? `it is ${status}` : `it is WAITING at position ${position}`;
    return new AppError('NOT_ADMITTED', `The queue entry is not admitted: ${where}`, { id: echo(id), status, position });
  },
  admissionUsed(id: string, bookingId: string | null): AppError {
    return new AppError('ADMISSION_USED', 'This admission was used by a booking already', { id: echo(id), bookingId });
  },
  admissionExpired(id: string, admittedUntil: Date): AppError {
    return new AppError('ADMISSION_EXPIRED', `This admission lapsed at ${admittedUntil.toISOString()}`, { id: echo(id), admittedUntil: admittedUntil.toISOString() });
  },
  admissionMismatch(id: string, mismatched: 'attendeeEmail' | 'eventSlug'): AppError {
    const whose = mismatched === 'attendeeEmail' ? "another attendee's" : "another event's";
    return new AppError('ADMISSION_MISMATCH', `This admission is ${whose}`, { id: echo(id), mismatched });
  },
};
