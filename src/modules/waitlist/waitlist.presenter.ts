import type { WaitlistEntry } from './waitlist.types';

/** A waiting-list entry as the webhooks send it (D18, D21): the fields of GraphQL's WaitlistEntry, dates as ISO 8601. */
export interface WaitlistEntryBody {
  id: string;
  eventId: string;
  eventSlug: string;
  ticketTypeId: string | null;
  quantity: number;
  attendeeEmail: string;
  attendeeName: string;
  status: string;
  createdAt: string;
  offeredBookingId: string | null;
  offeredAt: string | null;
  offerExpiresAt: string | null;
}

/**
 * `waitlist.offered`'s data: the entry as offered (status OFFERED, its position gone), and the id of
 * the HELD booking that holds its seats until `offerExpiresAt` (confirmBooking converts it). Pure.
 */
export function presentOffer(entry: Omit<WaitlistEntry, 'position'>): WaitlistEntryBody & { bookingId: string } {
  return {
    id: entry.id,
    eventId: entry.eventId,
    eventSlug: entry.eventSlug,
    ticketTypeId: entry.ticketTypeId,
    quantity: entry.quantity,
    attendeeEmail: entry.attendeeEmail,
    attendeeName: entry.attendeeName,
    status: entry.status,
    createdAt: entry.createdAt.toISOString(),
    offeredBookingId: entry.offeredBookingId,
    offeredAt: entry.offeredAt?.toISOString() ?? null,
    offerExpiresAt: entry.offerExpiresAt?.toISOString() ?? null,
    bookingId: entry.offeredBookingId!,
  };
}
