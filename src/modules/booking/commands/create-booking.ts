import type { EntityManager } from '@mikro-orm/postgresql';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { AppError } from '../../../foundation/errors/app-error';
import { assertBookable } from '../../event/event.policy';
import { BookingEntity, BookingStatus } from '../booking.entity';
import { newId } from '../../../foundation/ids';
import { seatsRequestErrors, type CreateBookingInput } from '../booking.inputs';
import { assertAvailable } from '../booking.policy';
import { bookEvent, type BookingChange, type NewBooking } from '../booking.repository';
import type { BookingRequest } from '../booking-statement';
import { presentBooking } from '../booking.presenter';
import { hole } from '../../../platform/outbox/outbox';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { DEFAULT_HOLD_MINUTES } from '../../organization/hold-settings';
import { holdMinutesErrors } from '../booking.policy';
import { expireDueHolds } from './expire-holds';
import { bookSlottedSlowly } from './book-slotted-slowly';
import { noTicketCodes } from '../../../platform/crypto/ticket-codes';
import { queueRefusal } from '../../queue/queue-gate';

/**
 * Mutation.createBooking (D7). One statement books (booking.repository.ts bookEvent), in the inventory
 * mode it reads with the event: for an event that keeps its count on its row, it locks the event row,
 * then the ticket type row, and books only when the rules of booking.policy.ts hold on those locked
 * rows; for a slotted event (src/modules/inventory/) it claims one slot of the event and the ticket
 * type's slot of the same number instead, so that bookings of one event commit side by side. Either
 * way concurrent bookings never take more than there is, in every process, and a lock is held for
 * that statement and its commit only. The reason for a refusal is worked out afterwards, from what the
 * statement found; a slotted event whose slots could not take the seats one by one is looked at whole
 * (bookSlottedSlowly). CHECK constraints are the backstop.
 */
export async function createBooking(
  scope: UnitOfWorkScope,
  organizationId: string,
  input: CreateBookingInput,
  settings: { readonly holdMinutes: number } = { holdMinutes: DEFAULT_HOLD_MINUTES },
): Promise<BookingEntity> {
  const { em } = scope;
  assertValidInput(
    seatsRequestErrors(input),
    input,
    holdMinutesErrors(input.holdMinutes, settings.holdMinutes),
  );

  // The booking's id is made first, so that with an Idempotency-Key the recovery point is written
  // before the event's row lock is taken (the unit of work's `returns`), not while it is held.
  const id = newId('bk');
  const createdAt = new Date();
  // D29: a booking CONFIRMED when made carries its ticket code from its statement on (a hold gets one when confirmed).
  const ticket = input.hold === true ? null : (scope.ticketCodes ?? noTicketCodes()).issue();
  const fields: NewBooking = {
    id,
    eventSlug: input.eventSlug,
    ticketTypeId: input.ticketTypeId ?? null,
    quantity: input.quantity,
    attendeeEmail: input.attendeeEmail,
    attendeeName: input.attendeeName.trim(),
    createdAt,
    // A hold (D20) takes its seats until then; the organization's holdMinutes unless the input says.
    expiresAt: input.hold === true ? new Date(createdAt.getTime() + (input.holdMinutes ?? settings.holdMinutes) * 60_000) : null,
    ticket,
    queueEntryId: input.queueEntryId ?? null,
  };
  // booking.created (booking.held for a hold) carries the booking as the API shows it; the event's id comes from the statement.
  const webhookData = presentBooking(
    {
      ...fields,
      ticketType: fields.ticketTypeId === null ? null : { id: fields.ticketTypeId },
      status: fields.expiresAt === null ? BookingStatus.CONFIRMED : BookingStatus.HELD,
      cancelledAt: null,
    },
    { id: hole(), slug: input.eventSlug },
  );
  const booking = await inUnitOfWork(
    scope,
    async (tx, unit) => {
      // With an Idempotency-Key, the key's recovery point is written by the booking's own statement;
      // the answer is read after the commit, with the request's own entity manager.
      const request: BookingRequest = { organizationId, fields, webhookData, answers: em, idempotency: unit.recoveryPoint, queueGated: true };
      let change = await bookEvent(tx, request);
      if (!change.changed && change.slots === 0 && !change.event) {
        // The event's row changed between the statement's read of it and its lock (published with
        // slots, or deleted): the next statement reads it as it is now.
        change = await bookEvent(tx, request);
      }
      if (!change.changed && change.event && change.event.held > 0) {
        // Seats of holds past their expiresAt are free from that moment (D20), stored or not: a booking
        // refused while held seats were counted gives lapsed ones back first (the sweep's work), then
        // tries once more, also when a sweep expired them between the statement and this pass.
        await expireDueHolds(em, organizationId, change.event.id, new Date());
        change = await bookEvent(tx, request);
      }
      if (change.changed && change.booking) return change.booking;
      return refused(tx, request, change);
    },
    { returns: { entity: BookingEntity.name, id }, singleStatement: true, recoveryPointInStatement: true },
  );
  // Its code in clear for the answer when this request stored it (a recovered retry's booking opens its own).
  if (ticket !== null && booking.ticketCodeSealed === ticket.sealed) booking.ticketCode = ticket.code;
  return booking;
}

/**
 * Why the statement did not book, in the order the rules are read (D7, then the queue's: D30), from what it found; or, for a
 * slotted event with room enough only spread over its slots, the booking made under the locks of
 * every slot (bookSlottedSlowly).
 */
function refused(tx: EntityManager, request: BookingRequest, change: BookingChange): Promise<BookingEntity> {
  const { fields } = request;
  if (change.slots === null) throw AppError.eventNotFound(fields.eventSlug);
  const { event, ticketType } = change;
  if (!event) throw new Error(`booking ${fields.id}: its event changed under two statements in a row`);
  assertBookable(event);
  if (fields.ticketTypeId !== null && !ticketType) throw AppError.ticketTypeNotFound(fields.ticketTypeId);
  // D30: the event's queue refused it (not on sale, no admission, or not this one's).
  if (change.queue) return queueRefusal(tx, request, change.queue);
  if (change.slots > 0) {
    // As the statement saw the event: not enough left in all of its slots together (a linearizable
    // answer: it was so when the statement ran). Otherwise there is room, only not in one slot.
    const room = change.room!;
    assertAvailable(
      { capacity: room.event, registrationCount: 0 },
      ticketType && room.ticketType !== null ? { id: ticketType.id, quantity: room.ticketType, sold: 0 } : null,
      fields.quantity,
    );
    return bookSlottedSlowly(tx, request);
  }
  assertAvailable(event, ticketType, fields.quantity);
  throw new Error(`booking ${fields.id} was refused for no reason the policy knows`);
}
