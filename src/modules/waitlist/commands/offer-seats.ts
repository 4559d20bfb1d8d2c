import type { EntityManager } from '@mikro-orm/postgresql';
import { inUnitOfWork, withinTransaction } from '../../../platform/db/unit-of-work';
import { systemScope } from '../../../platform/db/unit-of-work-scope';
import { holdOfferedSeats } from '../../booking/commands/offer-holds';
import { EventStatus, effectiveStatus } from '../../event/event-status';
import { WaitlistStatus } from '../waitlist-entry.entity';
import { chooseOffers } from '../waitlist.policy';
import { presentOffer } from '../waitlist.presenter';
import {
  eventsWithOffersDue,
  lockEventForWaitlist,
  lockWaitingEntries,
  markOffered,
  readLockedEvent,
  waitingEventId,
  type EventTarget,
} from '../waitlist.repository';

/*
 * Offers (D21): when seats come free — a cancellation, an expired hold, a raised capacity or
 * quantity, an offer given back — the WAITING entries of the event get them in join order, each as a
 * HELD booking (D20) that lasts the organization's waitlistOfferMinutes, in the SAME transaction as the
 * change that freed them, under the event's locks (its row, then every slot of a slotted event, taken
 * before that change runs): no booking can take the freed seats in between, and no other offer pass
 * or join can interleave. Each offer is a booking statement like any other, guarded by the capacity
 * and the quantity on the locked rows: an offer never oversells.
 *
 * Only events that have WAITING entries pay anything: one index-only `exists` before the change
 * (waitingEventId); without entries the change runs as before, alone (one statement, no transaction).
 * A join that commits while such a change waits for the event's lock is not seen by that `exists`
 * (the change's statement reads the snapshot it started with): the sweep's safety net
 * (offerWhereDue, every HOLD_EXPIRY_INTERVAL_MS) offers those seats within seconds. See D21 (docs/decisions/).
 */

/** Entries read per round of an offer pass. */
const ENTRIES_PER_ROUND = 200;

/**
 * Runs `free`, a change that may give seats of the organization's event `target` back. When the event
 * has WAITING entries: in one transaction that first takes the event's locks, runs `free`, then offers
 * what is free to the waiting entries (offerSeats); `free` is told so (`offersFollow`: counts it reads
 * are not the event's once the offers are made). Otherwise `free` runs on `em` as it would alone.
 */
export async function offeringFreedSeats<T>(
  em: EntityManager,
  organizationId: string,
  target: EventTarget,
  free: (tx: EntityManager, offersFollow: boolean) => Promise<T>,
): Promise<T> {
  const eventId = await waitingEventId(em, organizationId, target);
  if (eventId === null) return free(em, false);
  return withinTransaction(em, async (tx) => {
    await lockEventForWaitlist(tx, organizationId, { id: eventId });
    const value = await free(tx, true);
    await offerSeats(tx, organizationId, eventId, new Date());
    return value;
  });
}

/**
 * The offer pass, in the caller's transaction, which holds the event's locks (lockEventForWaitlist):
 * the seats left on the event and its ticket types, the WAITING entries in join order, the ones that
 * fit (waitlist.policy.ts chooseOffers), each given a HELD booking and made OFFERED with its
 * `waitlist.offered` message. Returns how many entries got an offer.
 */
export async function offerSeats(tx: EntityManager, organizationId: string, eventId: string, at: Date): Promise<number> {
  let offered = 0;
  for (;;) {
    const event = await readLockedEvent(tx, eventId, at);
    if (!event || effectiveStatus(event.status as EventStatus, event.endDate, at) !== EventStatus.PUBLISHED) return offered;
    if (event.room !== null && event.room <= 0) return offered;
    const entries = await lockWaitingEntries(tx, eventId, event.room, ENTRIES_PER_ROUND);
    const chosen = chooseOffers(entries, { event: event.room, ticketTypes: new Map(event.ticketTypes.map((type) => [type.id, type.room])) });
    const expiresAt = new Date(at.getTime() + event.offerMinutes * 60_000);
    let round = 0;
    for (const entry of chosen) {
      const bookingId = await holdOfferedSeats(tx, organizationId, { ...entry, eventSlug: event.slug }, at, expiresAt);
      if (bookingId === null) continue;
      const data = presentOffer({
        ...entry,
        eventId,
        eventSlug: event.slug,
        status: WaitlistStatus.OFFERED,
        offeredBookingId: bookingId,
        offeredAt: at,
        offerExpiresAt: expiresAt,
      });
      // The entry is locked (lockWaitingEntries): it is still WAITING.
      if (!(await markOffered(tx, organizationId, entry.id, bookingId, at, data))) throw new Error(`waiting-list entry ${entry.id} changed under its lock`);
      round += 1;
    }
    offered += round;
    // A full round may have left seats for entries past it.
    if (entries.length < ENTRIES_PER_ROUND || round === 0) return offered;
  }
}

/** Events whose offers are due, per sweep. */
const EVENTS_PER_SWEEP = 20;

/**
 * The safety net, run by the expiry sweep on every instance: events whose WAITING entries fit seats
 * that are free now get their offer pass (each in a transaction of its own, under the event's locks).
 * Returns how many entries got an offer.
 */
export async function offerWhereDue(em: EntityManager, wake?: () => void): Promise<number> {
  let offered = 0;
  for (const { eventId, organizationId } of await eventsWithOffersDue(em.fork(), EVENTS_PER_SWEEP)) {
    // A unit of work of its own: the webhook workers are woken after its commit.
    offered += await inUnitOfWork(systemScope(em.fork(), 'waitlist-offers', { outboxWritten: wake }), async (tx) => {
      if (!(await lockEventForWaitlist(tx, organizationId, { id: eventId }))) return 0;
      return offerSeats(tx, organizationId, eventId, new Date());
    });
  }
  return offered;
}
