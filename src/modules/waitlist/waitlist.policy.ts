import { AppError } from '../../foundation/errors/app-error';
import { WaitlistStatus } from './waitlist-entry.entity';

/* Every rule of the waiting list (D21), as pure functions of the state read under the event's locks. */

/** Seats free now (null: nothing limits them). */
export interface FreeSeats {
  /** The event's capacity less its confirmed and held seats (holds past their expiresAt count as free). */
  readonly event: number | null;
  /** The ticket type's quantity less its sold and held tickets, when the entry names one. */
  readonly ticketType: { readonly id: string; readonly free: number } | null;
}

/**
 * joinWaitlist only when the seats asked for are not free now: SEATS_AVAILABLE otherwise (book them
 * instead), with what is free (the tightest limit; null when nothing limits them).
 */
export function assertSoldOutFor(free: FreeSeats, requested: number): void {
  const limits: Array<{ limitedBy: 'capacity' | 'ticketType'; available: number }> = [];
  if (free.event !== null) limits.push({ limitedBy: 'capacity', available: free.event });
  if (free.ticketType) limits.push({ limitedBy: 'ticketType', available: free.ticketType.free });
  const tightest = limits.sort((a, b) => a.available - b.available).at(0);
  if (tightest && tightest.available < requested) return;
  throw AppError.seatsAvailable({
    available: tightest === undefined ? null : Math.max(0, tightest.available),
    requested,
    limitedBy: tightest?.limitedBy ?? null,
    ...(tightest?.limitedBy === 'ticketType' && free.ticketType ? { ticketTypeId: free.ticketType.id } : {}),
  });
}

/** A WAITING entry as the offer pass sees it. */
export interface OfferCandidate {
  readonly id: string;
  readonly ticketTypeId: string | null;
  readonly quantity: number;
}

/** Room left for offers: the event's (null: no capacity) and each ticket type's, by id. */
export interface OfferRoom {
  readonly event: number | null;
  readonly ticketTypes: ReadonlyMap<string, number>;
}

/**
 * The entries that get an offer (D21): in join order, each whose seats fit what is left of the
 * event's room and of its ticket type's; an entry too large keeps its place (it stays WAITING) and
 * the later, smaller ones may pass it. A ticket type that no longer exists has no room.
 */
export function chooseOffers<T extends OfferCandidate>(entries: readonly T[], room: OfferRoom): T[] {
  let event = room.event;
  const types = new Map(room.ticketTypes);
  const chosen: T[] = [];
  for (const entry of entries) {
    if (event !== null && entry.quantity > event) continue;
    if (entry.ticketTypeId !== null && (types.get(entry.ticketTypeId) ?? 0) < entry.quantity) continue;
    chosen.push(entry);
    if (event !== null) event -= entry.quantity;
    if (entry.ticketTypeId !== null) types.set(entry.ticketTypeId, types.get(entry.ticketTypeId)! - entry.quantity);
  }
  return chosen;
}

/**
 * What leaveWaitlist does to an entry as found: a WAITING one leaves; an OFFERED one leaves and its
 * held booking gives its seats back (offered on to the next entries); one that LEFT already is
 * answered unchanged (a retry is harmless); a CONVERTED one has a confirmed booking (cancel that) and an
 * EXPIRED one is no longer on the list: WAITLIST_ENTRY_NOT_WAITING.
 */
export function leaveOf(entry: { id: string; status: WaitlistStatus }): 'leave' | 'leave-offer' | 'unchanged' {
  switch (entry.status) {
    case WaitlistStatus.WAITING:
      return 'leave';
    case WaitlistStatus.OFFERED:
      return 'leave-offer';
    case WaitlistStatus.LEFT:
      return 'unchanged';
    case WaitlistStatus.CONVERTED:
    case WaitlistStatus.EXPIRED:
      throw AppError.waitlistEntryNotWaiting(entry.id, entry.status);
  }
}
