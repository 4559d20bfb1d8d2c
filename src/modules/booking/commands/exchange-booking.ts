import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { idErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { recordAudit } from '../../../platform/audit/audit-log';
import { noTicketCodes, type IssuedTicketCode } from '../../../platform/crypto/ticket-codes';
import { inSavepoint, isLockConflict } from '../../../platform/db/savepoint';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { SLOT_COUNT, roomiestSlot } from '../../inventory/inventory.policy';
import { gatherRoom, lockEventSlots, lockTicketTypeSlots } from '../../inventory/inventory.repository';
import { offerSeats } from '../../waitlist/commands/offer-seats';
import { lockEventForWaitlist, waitingEventId } from '../../waitlist/waitlist.repository';
import { BookingEntity } from '../booking.entity';
import { exchangeInputErrors, type ExchangeBookingInput } from '../booking.inputs';
import { lockEventsInOrder, moveBooking, placesOf, type MoveAnswer } from '../exchange.repository';
import { exchangeRefusal, type ExchangeRequest, type NextAttempt } from '../exchange.policy';
import { replaceTicketCode } from '../ticket-code.repository';
import { expireDueHolds } from './expire-holds';

/**
 * Attempts of one exchange before it answers 503 SERVICE_UNAVAILABLE (Retry-After): each attempt that
 * PostgreSQL refuses as a deadlock, or that finds the booking or the target changed between its read
 * and its locks, starts again from a savepoint. The lock order makes a deadlock rare; this bounds it.
 */
const MAX_ATTEMPTS = 5;

/**
 * Mutation.exchangeBooking (D29): a CONFIRMED booking, not checked in, before its event's transfer lock,
 * moves to ANOTHER event of the organization (and a ticket type of it, required when it has some),
 * keeping its id. One transaction: the seats taken at the target and given back at the source, never
 * oversold on either side, in either inventory mode (exchange.repository.ts: both events' rows locked
 * in id order, then one statement of the modes' fragments); the freed seats offered to the source's
 * waiting list (D21); a new code issued and the old one superseded (a scan of it answers
 * TICKET_TRANSFERRED); `booking.exchanged` (never a code) and the audit entry `booking.exchanged`.
 * Refusals: exchange.policy.ts; a target that is full is SOLD_OUT with nothing changed.
 */
export async function exchangeBooking(scope: UnitOfWorkScope, organizationId: string, id: string, input: ExchangeBookingInput): Promise<BookingEntity> {
  assertValidInput(idErrors('id', id, 'bk'), exchangeInputErrors(input), input);
  const ticket = (scope.ticketCodes ?? noTicketCodes()).issue();
  const request = { id, eventSlug: input.eventSlug, ticketTypeId: input.ticketTypeId ?? null };
  const now = new Date();
  // D20: holds of the target past their expiresAt leave their seats free from that moment on; given
  // back first (the sweep's work, with their waiting-list offers), before this transaction takes the
  // target's locks, and the exchange is judged at the same time.
  const { targetId } = await placesOf(scope.em, organizationId, id, request.eventSlug);
  if (targetId !== null) await expireDueHolds(scope.em, organizationId, targetId, now);

  return inUnitOfWork(
    scope,
    async (tx, unit) => {
      let next: NextAttempt = 'again';
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
        let outcome: Exchanged | NextAttempt;
        try {
          const gather: boolean = next === 'gather';
          outcome = await inSavepoint<Exchanged | NextAttempt>(tx, () => attemptExchange(tx, organizationId, request, ticket, now, gather), (value) => typeof value === 'object');
        } catch (error) {
          if (!isLockConflict(error)) throw error;
          outcome = 'again';
        }
        if (typeof outcome === 'string') {
          next = outcome;
          continue;
        }
        const { booking, from, to } = outcome;
        await recordAudit(tx, unit, {
          organizationId,
          action: 'booking.exchanged',
          targetId: id,
          summary: { from: { ...from }, to: { ...to }, quantity: booking.quantity },
        });
        return booking;
      }
      throw AppError.serviceUnavailable('The exchange met concurrent changes of its events too many times; try again shortly');
    },
    { returns: { entity: BookingEntity.name, id } },
  );
}

interface Exchanged {
  readonly booking: BookingEntity;
  readonly from: { readonly eventId: string; readonly eventSlug: string; readonly ticketTypeId: string | null };
  readonly to: { readonly eventId: string; readonly eventSlug: string; readonly ticketTypeId: string | null };
}

/**
 * One attempt, inside its savepoint: where the booking is, both events' rows locked in id order, the
 * source's every slot too when people wait there (D21, the offer pass's locks), a slotted target's room
 * gathered into one slot when the last attempt found it spread (`gather`), then the move; its new code
 * and the offers of the freed seats after it. Returns the exchange, or what the next attempt should do.
 */
async function attemptExchange(
  tx: EntityManager,
  organizationId: string,
  request: Omit<ExchangeRequest, 'quantity'>,
  ticket: IssuedTicketCode,
  now: Date,
  gather: boolean,
): Promise<Exchanged | NextAttempt> {
  const { booking, targetId } = await placesOf(tx, organizationId, request.id, request.eventSlug);
  if (!booking) throw AppError.bookingNotFound(request.id);
  const waiting = targetId === booking.eventId ? null : await waitingEventId(tx, organizationId, { eventId: booking.eventId });
  const slots = await lockEventsInOrder(tx, organizationId, booking.eventId, targetId);
  if (waiting !== null) await lockEventForWaitlist(tx, organizationId, { id: waiting });
  let start = Math.floor(Math.random() * SLOT_COUNT);
  if (gather && targetId !== null && (slots.get(targetId) ?? 0) > 0) {
    start = await gatherTargetRoom(tx, targetId, request.ticketTypeId, booking.quantity);
  }

  const moved: MoveAnswer = await moveBooking(
    tx,
    organizationId,
    { id: request.id, fromEventId: booking.eventId, fromSlot: booking.slot, quantity: booking.quantity, toSlug: request.eventSlug, toTicketTypeId: request.ticketTypeId, start },
    now,
  );
  if (!moved.changed || !moved.booking || !moved.from || !moved.target) return exchangeRefusal(moved, { ...request, quantity: booking.quantity }, now);

  const exchanged = await replaceTicketCode(tx, organizationId, request.id, ticket, 'EXCHANGE', now);
  if (!exchanged) throw new Error(`booking ${request.id} was exchanged and then not found`);
  if (waiting !== null) await offerSeats(tx, organizationId, waiting, now);
  return {
    booking: exchanged,
    from: moved.from,
    to: { eventId: moved.target.id, eventSlug: moved.target.slug, ticketTypeId: request.ticketTypeId },
  };
}

/**
 * A slotted target's room for `quantity` seats gathered into its roomiest slot, under the locks of every
 * slot of the event, then of the ticket type (the order of inventory.repository.ts): the slot the move
 * looks from. The ticket type is the target's (the attempt before found it there). Rare: the end of a
 * sell-out, or a large booking.
 */
async function gatherTargetRoom(tx: EntityManager, eventId: string, ticketTypeId: string | null, quantity: number): Promise<number> {
  const eventSlots = await lockEventSlots(tx, eventId);
  const typeSlots = ticketTypeId === null ? [] : await lockTicketTypeSlots(tx, ticketTypeId);
  const slot = roomiestSlot(typeSlots.length > 0 ? typeSlots : eventSlots.slots);
  await gatherRoom(tx, { id: eventId, slots: eventSlots.slots }, ticketTypeId !== null && typeSlots.length > 0 ? { id: ticketTypeId, slots: typeSlots } : null, slot, quantity);
  return slot;
}
