import { AppError, type FieldError } from '../../foundation/errors/app-error';
import { assertBookable } from '../event/event.policy';
import type { EventStatus } from '../event/event-status';
import type { BookingStatus } from './booking.entity';
import { assertAvailable } from './booking.policy';
import { assertTransferable, transferLockedAt } from './transfer.policy';

/*
 * The rules of an exchange (D29), as pure functions of what its statement found under its locks
 * (exchange.repository.ts applies the same rules as its guards). An exchange is refused like a
 * transfer first (the booking), then like a booking of the target (createBooking's order), in this
 * order:
 *   BOOKING_NOT_CONFIRMED, BOOKING_CHECKED_IN, TRANSFER_LOCKED (the source event's lock);
 *   EVENT_NOT_FOUND (no event eventSlug in the organization);
 *   VALIDATION_ERROR on eventSlug: the booking's own event (an exchange moves a booking to ANOTHER
 *     event; its ticket type within its event is not changed by one: cancel and book again);
 *   VALIDATION_ERROR on ticketTypeId: none given, and the target has ticket types;
 *   EVENT_NOT_PUBLISHED (the target not bookable), TICKET_TYPE_NOT_FOUND (not one of the target's),
 *   SOLD_OUT (details as createBooking's).
 */

/** What the exchange statement found (its refusals are worked out from it). */
export interface ExchangeFound {
  /** The booking as found where its seats are counted; null when it was not there (moved meanwhile). */
  readonly booking: {
    readonly eventId: string;
    readonly status: BookingStatus;
    readonly expiresAt: Date | null;
    readonly checkedInAt: Date | null;
  } | null;
  /** The source event's start, and the organization's transferLockMinutes: its lock. */
  readonly start: Date | null;
  readonly transferLockMinutes: number;
  /** The target event as read under its row's lock; `registrationCount` counts its row's confirmed and held seats. */
  readonly target: {
    readonly id: string;
    readonly slug: string;
    readonly status: EventStatus;
    readonly capacity: number | null;
    readonly registrationCount: number;
    readonly slots: number;
  } | null;
  /** Whether the target has ticket types (one must then be given). */
  readonly ticketTypeRequired: boolean;
  /** The ticket type asked for, when it is the target's; `sold` (confirmed and held) when its counts are on its row. */
  readonly ticketType: { readonly id: string; readonly quantity: number; readonly sold: number | null } | null;
  /** A slotted target: what was left in all its slots and in the ticket type's, as the statement saw them. */
  readonly room: { readonly event: number | null; readonly ticketType: number | null } | null;
}

/** What the exchange asked for. */
export interface ExchangeRequest {
  readonly id: string;
  readonly eventSlug: string;
  readonly ticketTypeId: string | null;
  readonly quantity: number;
}

/**
 * What a refused attempt calls for, when no rule refused it: `gather` (a slotted target has the room,
 * only spread over its slots: the next attempt gathers it into one, under the locks of every slot), or
 * `again` (the booking or the target changed between the read and the locks: the next attempt reads
 * them again).
 */
export type NextAttempt = 'gather' | 'again';

export const sameEventError = (): FieldError => ({
  field: 'eventSlug',
  message: "eventSlug must name another event than the booking's own: an exchange moves a booking to another event (D29)",
});

export const ticketTypeRequiredError = (eventSlug: string): FieldError => ({
  field: 'ticketTypeId',
  message: `ticketTypeId is required: event "${eventSlug}" has ticket types`,
});

/** Why the statement did not move the booking (throws the refusal), or what the next attempt should do. `now` is the time it was judged at. */
export function exchangeRefusal(found: ExchangeFound, request: ExchangeRequest, now: Date): NextAttempt {
  const { booking, target, ticketType } = found;
  if (!booking || !found.start) return 'again';
  assertTransferable(booking, transferLockedAt(found.start, found.transferLockMinutes), now, 'exchanged');
  if (!target) throw AppError.eventNotFound(request.eventSlug);
  if (target.id === booking.eventId) throw AppError.validation([sameEventError()]);
  if (found.ticketTypeRequired && request.ticketTypeId === null) throw AppError.validation([ticketTypeRequiredError(target.slug)]);
  assertBookable(target);
  if (request.ticketTypeId !== null && !ticketType) throw AppError.ticketTypeNotFound(request.ticketTypeId);
  if (target.slots > 0) {
    if (!found.room) return 'again';
    assertAvailable(
      { capacity: found.room.event, registrationCount: 0 },
      ticketType && found.room.ticketType !== null ? { id: ticketType.id, quantity: found.room.ticketType, sold: 0 } : null,
      request.quantity,
    );
    return 'gather';
  }
  assertAvailable(target, ticketType && ticketType.sold !== null ? { id: ticketType.id, quantity: ticketType.quantity, sold: ticketType.sold } : null, request.quantity);
  return 'again';
}
