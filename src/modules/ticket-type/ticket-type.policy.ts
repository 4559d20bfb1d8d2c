import { AppError, type FieldError } from '../../foundation/errors/app-error';

/* Every state rule of a ticket type (docs/decisions/ D6), as pure functions of the loaded state. */

/** An event has at most this many ticket types (on create and when adding one). */
export const MAX_TICKET_TYPES = 50;

export function ticketTypeCountErrors(existing: number): FieldError[] {
  return existing >= MAX_TICKET_TYPES ? [{ field: 'eventSlug', message: `eventSlug names an event that already has the most ticket types allowed, ${MAX_TICKET_TYPES}` }] : [];
}

/** quantity never goes below the number already sold. */
export function quantityErrors(quantity: number | null | undefined, sold: number): FieldError[] {
  return quantity != null && quantity < sold ? [{ field: 'quantity', message: `quantity cannot be below the ${sold} tickets already sold` }] : [];
}

/** A type with sales cannot be removed (its bookings would lose their type). */
export function assertRemovable(ticketType: { id: string; sold: number }): void {
  if (ticketType.sold > 0) throw AppError.ticketTypeHasSales(ticketType.id, ticketType.sold);
}
