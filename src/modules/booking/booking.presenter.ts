import type { EventEntity } from '../event/event.entity';
import { effectiveBookingStatus, type BookingEntity, type BookingStatus } from './booking.entity';

/** A booking as the webhooks send it (D18): GraphQL's Booking fields, with its event's id and slug. */
export interface BookingBody {
  id: string;
  eventId: string;
  eventSlug: string;
  ticketTypeId: string | null;
  quantity: number;
  attendeeEmail: string;
  attendeeName: string;
  status: BookingStatus;
  createdAt: string;
  cancelledAt: string | null;
  expiresAt: string | null;
  confirmedAt: string | null;
  /** When the attendee was checked in at the door (D22); null until then. */
  checkedInAt: string | null;
}

/**
 * The booking from the rows its command holds (the booking and its event, locked in the transaction):
 * the values `booking(id)` answers for the same fields, dates as ISO 8601 UTC with milliseconds. Pure.
 */
export function presentBooking(
  booking: Pick<BookingEntity, 'id' | 'quantity' | 'attendeeEmail' | 'attendeeName' | 'status' | 'createdAt' | 'cancelledAt'> &
    Partial<Pick<BookingEntity, 'expiresAt' | 'confirmedAt' | 'checkedInAt'>> & {
      ticketType: { id: string } | null;
    },
  event: Pick<EventEntity, 'id' | 'slug'>,
): BookingBody {
  return {
    id: booking.id,
    eventId: event.id,
    eventSlug: event.slug,
    ticketTypeId: booking.ticketType?.id ?? null,
    quantity: booking.quantity,
    attendeeEmail: booking.attendeeEmail,
    attendeeName: booking.attendeeName,
    status: effectiveBookingStatus({ status: booking.status, expiresAt: booking.expiresAt ?? null }),
    createdAt: booking.createdAt.toISOString(),
    cancelledAt: booking.cancelledAt?.toISOString() ?? null,
    expiresAt: booking.expiresAt?.toISOString() ?? null,
    confirmedAt: booking.confirmedAt?.toISOString() ?? null,
    checkedInAt: booking.checkedInAt?.toISOString() ?? null,
  };
}
