import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { hole } from '../../../platform/outbox/outbox';
import { systemScope, type UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import { BookingStatus } from '../booking.entity';
import { presentBooking } from '../booking.presenter';
import { changeBooking, dueHolds, dueHoldsOfEvent, type BookingSeats } from '../booking-transitions.repository';
import { findById } from '../booking.repository';
import { offeringFreedSeats, offerWhereDue } from '../../waitlist/commands/offer-seats';

/*
 * Expiry of holds (D20). A hold's seats are free from its expiresAt on without anything running: a
 * booking that would be refused while some are still counted gives them back first (expireDueHolds),
 * and every count clients read leaves them out. The stored status and the `booking.expired` webhook
 * follow within seconds: every instance sweeps (startHoldExpiry), and each hold is expired once, by
 * the one statement whose gate still finds it HELD (another instance's statement finds it EXPIRED and
 * changes nothing).
 */

/** Holds expired per statement of a sweep or of a refused booking (each is one statement). */
const BATCH = 100;

/** Expires one hold at `at`: one statement; false when it was not (any longer) a due hold. */
async function expireHold(scope: UnitOfWorkScope, organizationId: string, hold: BookingSeats, at: Date): Promise<boolean> {
  return inUnitOfWork(
    scope,
    async (tx) => {
      const booking = await findById(tx, organizationId, hold.id);
      const webhookData = presentBooking({ ...booking, status: BookingStatus.EXPIRED }, { id: hold.eventId, slug: hole() });
      // With people waiting (D21), in one transaction with the offer of the seats to them.
      return offeringFreedSeats(tx, organizationId, { eventId: hold.eventId }, async (locked) =>
        (await changeBooking(locked, organizationId, hold, 'expire', at, webhookData)).changed,
      );
    },
    { singleStatement: true },
  );
}

/**
 * The holds of the organization's event `eventId` due at `at`, expired now (at most a batch): how
 * many were. Run by the system, outside the request's unit of work.
 */
export async function expireDueHolds(em: EntityManager, organizationId: string, eventId: string, at: Date, wake?: () => void): Promise<number> {
  let expired = 0;
  for (const hold of await dueHoldsOfEvent(em.fork(), eventId, at, BATCH)) {
    if (await expireHold(systemScopeOf(em, wake), organizationId, hold, at)) expired += 1;
  }
  return expired;
}

/** An entity manager of its own for one expiry, run by the system (the webhook workers woken after its commit). */
function systemScopeOf(em: EntityManager, wake?: () => void): UnitOfWorkScope {
  return systemScope(em.fork(), 'hold-expiry', { outboxWritten: wake });
}

/**
 * Sweeps every organization's due holds every `intervalMs` (and at once when a sweep was full), on
 * this instance; stopped by the returned function. Within `intervalMs` of its expiresAt a hold is
 * stored EXPIRED and its `booking.expired` message written.
 */
export function startHoldExpiry(em: EntityManager, logger: Logger, options: { intervalMs: number; wake?: () => void }): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const sweep = async (): Promise<number> => {
    const at = new Date();
    const due = await dueHolds(em.fork(), at, BATCH);
    for (const hold of due) {
      if (stopped) break;
      await expireHold(systemScopeOf(em, options.wake), hold.organizationId, hold, at);
    }
    // The waiting list's safety net (D21): seats free while entries that fit them wait get offered.
    if (!stopped) await offerWhereDue(em, options.wake);
    return due.length;
  };
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = sweep().then(
        (found) => schedule(found === BATCH ? 0 : options.intervalMs),
        (error: unknown) => {
          logger.warn({ err: error }, 'hold expiry sweep failed; trying again');
          schedule(options.intervalMs);
        },
      );
    }, delayMs);
    timer.unref();
  };
  schedule(options.intervalMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
