import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { QueueErrors } from '../../foundation/errors/queue-errors';
import { findEntry } from './queue.read-repository';
import type { QueueGateFound } from './queue-gate.repository';

/*
 * The on-sale queue's gate in front of bookings (D30). The booking statement applies it
 * (src/modules/booking/booking.repository.ts QUEUE_GATE): with the event's queue enabled, a booking or
 * hold needs the ADMITTED entry of its attendee, which becomes USED with it. When the gate refuses,
 * the statement answers what it found, and the reason is worked out here, on that path only.
 */

/** The booking the gate refused, as it asked. */
export interface GatedBooking {
  readonly organizationId: string;
  readonly fields: { readonly eventSlug: string; readonly quantity: number; readonly attendeeEmail: string; readonly createdAt: Date; readonly queueEntryId?: string | null };
}

/**
 * Why the gate refused, in this order: more seats than an admission books (400 on quantity); before
 * onSaleAt (NOT_ON_SALE); no entry presented (QUEUE_REQUIRED); an unknown entry (QUEUE_ENTRY_NOT_FOUND)
 * or another event's or attendee's (ADMISSION_MISMATCH); then by the entry's status: used
 * (ADMISSION_USED), lapsed (ADMISSION_EXPIRED), sold out (SOLD_OUT), else not admitted (NOT_ADMITTED,
 * with its position).
 */
export async function queueRefusal(em: EntityManager, booking: GatedBooking, found: QueueGateFound): Promise<never> {
  const { organizationId, fields } = booking;
  if (fields.quantity > found.maxSeatsPerAdmission) {
    throw AppError.validation([
      { field: 'quantity', message: `quantity must be at most ${found.maxSeatsPerAdmission}: what one admission of this event's queue books` },
    ]);
  }
  if (found.onSaleAt !== null && found.onSaleAt.getTime() > fields.createdAt.getTime()) throw QueueErrors.notOnSale(found.onSaleAt);
  const id = fields.queueEntryId;
  if (id == null) throw QueueErrors.queueRequired(fields.eventSlug);
  const { entry } = found;
  if (entry === null) {
    if (await findEntry(em, organizationId, id)) throw QueueErrors.admissionMismatch(id, 'eventSlug');
    throw QueueErrors.queueEntryNotFound(id);
  }
  if (entry.attendeeEmail.toLowerCase() !== fields.attendeeEmail.toLowerCase()) throw QueueErrors.admissionMismatch(id, 'attendeeEmail');
  if (entry.status === 'USED') throw QueueErrors.admissionUsed(id, entry.bookingId);
  const lapsed = entry.admittedUntil !== null && entry.admittedUntil.getTime() <= fields.createdAt.getTime();
  if (entry.status === 'EXPIRED' || (entry.status === 'ADMITTED' && lapsed)) throw QueueErrors.admissionExpired(id, entry.admittedUntil!);
  if (entry.status === 'SOLD_OUT') throw QueueErrors.queueSoldOut(null);
  const polled = await findEntry(em, organizationId, id);
  throw QueueErrors.notAdmitted(id, polled?.status ?? entry.status, polled?.position ?? null);
}
