import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { hole } from '../../../platform/outbox/outbox';
import { BookingStatus, effectiveBookingStatus, newBookingId } from '../booking.entity';
import { presentBooking } from '../booking.presenter';
import { bookEvent, findById, type NewBooking } from '../booking.repository';
import type { BookingRequest } from '../booking-statement';
import { changeBooking } from '../booking-transitions.repository';
import { bookSlottedSlowly } from './book-slotted-slowly';

/*
 * The bookings of the waiting list's offers (D21), made and given back by the waiting list's
 * commands (src/modules/waitlist/) inside their transactions, which hold the event's locks.
 */

/** The seats an offer holds, and for whom. */
export interface OfferedSeats {
  readonly eventSlug: string;
  readonly ticketTypeId: string | null;
  readonly quantity: number;
  readonly attendeeEmail: string;
  readonly attendeeName: string;
}

/**
 * A HELD booking (D20) of `seats` from `at` until `expiresAt`, made by the booking statement (guarded
 * by the capacity and the quantity on the locked rows, with its `booking.held` message): its id, or
 * null when they refused it (nothing was changed then).
 */
export async function holdOfferedSeats(tx: EntityManager, organizationId: string, seats: OfferedSeats, at: Date, expiresAt: Date): Promise<string | null> {
  const fields: NewBooking = {
    id: newBookingId(),
    eventSlug: seats.eventSlug,
    ticketTypeId: seats.ticketTypeId,
    quantity: seats.quantity,
    attendeeEmail: seats.attendeeEmail,
    attendeeName: seats.attendeeName,
    createdAt: at,
    expiresAt,
  };
  const webhookData = presentBooking(
    { ...fields, ticketType: fields.ticketTypeId === null ? null : { id: fields.ticketTypeId }, status: BookingStatus.HELD, cancelledAt: null },
    { id: hole(), slug: seats.eventSlug },
  );
  const request: BookingRequest = { organizationId, fields, webhookData, answers: tx };
  const change = await bookEvent(tx, request);
  if (change.changed) return fields.id;
  if (!change.slots) return null;
  try {
    // A slotted event: room enough, but not in one slot? Gathered under the slots' locks (held by the caller).
    await bookSlottedSlowly(tx, request);
    return fields.id;
  } catch (error) {
    if (error instanceof AppError) return null;
    throw error;
  }
}

/**
 * An offer's booking gives its seats back at `now` (its entry left the waiting list): cancelled while
 * its hold lasts (`booking.cancelled`), expired once past its expiresAt (`booking.expired`); nothing
 * when it is not HELD any more.
 */
export async function releaseOfferedSeats(tx: EntityManager, organizationId: string, bookingId: string, now: Date): Promise<void> {
  const booking = await findById(tx, organizationId, bookingId);
  if (booking.status !== BookingStatus.HELD) return;
  const cancel = effectiveBookingStatus(booking, now) === BookingStatus.HELD;
  const webhookData = presentBooking(
    { ...booking, status: cancel ? BookingStatus.CANCELLED : BookingStatus.EXPIRED, cancelledAt: cancel ? now : null },
    { id: booking.event.id, slug: hole() },
  );
  await changeBooking(tx, organizationId, { id: booking.id, eventId: booking.event.id, slot: booking.slot }, cancel ? 'cancel' : 'expire', now, webhookData);
}
