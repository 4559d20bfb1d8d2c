import { assertValidInput } from '../../../foundation/validation/validate-input';
import { AppError } from '../../../foundation/errors/app-error';
import { assertBookable } from '../../event/event.policy';
import { BookingEntity, BookingStatus } from '../booking.entity';
import { newId } from '../../../foundation/ids';
import { seatsRequestErrors, type CreateBookingInput } from '../booking.inputs';
import { assertAvailable } from '../booking.policy';
import { bookSeats, type BookingChange, type NewBooking } from '../booking.repository';
import type { BookingRequest } from '../booking-statement';
import { bookSlotted } from '../slotted-booking.repository';
import { presentBooking } from '../booking.presenter';
import { hole } from '../../../platform/outbox/outbox';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { SLOT_COUNT } from '../../inventory/inventory.policy';
import { DEFAULT_HOLD_MINUTES } from '../../organization/hold-settings';
import { holdMinutesErrors } from '../booking.policy';
import { expireDueHolds } from './expire-holds';
import { bookSlottedSlowly } from './book-slotted-slowly';
import { noTicketCodes } from '../../../platform/crypto/ticket-codes';

/**
 * Which events are slotted, as last seen by this process (organization and slug → slotted): which of
 * the two booking statements to try first. Only a hint: each statement checks the event's kind and
 * refuses the other, and the command then runs the other one.
 */
const slottedHint = new Map<string, boolean>();
const MAX_HINTS = 10_000;

function remember(key: string, slotted: boolean): void {
  if (slottedHint.size >= MAX_HINTS) slottedHint.clear();
  slottedHint.set(key, slotted);
}

/**
 * Mutation.createBooking (D7). One statement books (booking.repository.ts): for an event that keeps
 * its count on its row, it locks the event row, then the ticket type row, and books only when the
 * rules of booking.policy.ts hold on those locked rows; for a slotted event (src/modules/inventory/) it
 * claims one slot of the event and the ticket type's slot of the same number instead, so that
 * bookings of one event commit side by side. Either way concurrent bookings never take more than
 * there is, in every process, and a lock is held for that statement and its commit only. The reason
 * for a refusal is worked out afterwards, from what the statement found; a slotted event whose slots
 * could not take the seats one by one is looked at whole (bookSlottedSlowly). CHECK constraints are
 * the backstop.
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
  const hintKey = `${organizationId}\u0000${input.eventSlug}`;
  const booking = await inUnitOfWork(
    scope,
    async (tx, unit) => {
      // With an Idempotency-Key, the key's recovery point is written by the booking's own statement;
      // the answer is read after the commit, with the request's own entity manager.
      const request: BookingRequest = { organizationId, fields, webhookData, answers: em, idempotency: unit.recoveryPoint };
      const book = (slotted: boolean): Promise<BookingChange> =>
        slotted ? bookSlotted(tx, request, Math.floor(Math.random() * SLOT_COUNT)) : bookSeats(tx, request);
      let slotted = slottedHint.get(hintKey) ?? false;
      let expiredDue = false;
      for (let attempt = 1; ; attempt += 1) {
        const change = await book(slotted);
        if (change.booking && change.changed) return change.booking;
        if (change.slots === null) throw AppError.eventNotFound(input.eventSlug);
        // Seats of holds past their expiresAt are free from that moment (D20), stored or not: a booking
        // refused while held seats were counted gives lapsed ones back first (the sweep's work), then
        // tries once more, also when a sweep expired them between the statement and this pass.
        if (!expiredDue && change.event && change.event.held > 0 && change.slots > 0 === slotted) {
          expiredDue = true;
          await expireDueHolds(em, organizationId, change.event.id, new Date());
          continue;
        }
        if (change.slots > 0 !== slotted) {
          // The hint was wrong (the event was slotted when it was published): the other statement.
          slotted = change.slots > 0;
          remember(hintKey, slotted);
        } else if (slotted && change.event) {
          // As the statement saw the event: not bookable, or not enough left in all of its slots
          // together (a linearizable answer: it was so when the statement ran). Otherwise there is room,
          // only not in one slot: gather it under the locks of every slot.
          assertBookable(change.event);
          if (fields.ticketTypeId !== null && !change.ticketType) throw AppError.ticketTypeNotFound(fields.ticketTypeId);
          const room = change.room!;
          assertAvailable(
            { capacity: room.event === null ? null : room.event, registrationCount: 0 },
            change.ticketType && room.ticketType !== null ? { id: change.ticketType.id, quantity: room.ticketType, sold: 0 } : null,
            input.quantity,
          );
          return bookSlottedSlowly(tx, request);
        } else if (change.event) {
          // Refused: why, in the order the rules are read (D7).
          assertBookable(change.event);
          if (fields.ticketTypeId !== null && !change.ticketType) throw AppError.ticketTypeNotFound(fields.ticketTypeId);
          assertAvailable(change.event, change.ticketType, input.quantity);
        }
        // Nothing refused it: the event changed kind between the statement's two reads of it. Again.
        if (attempt === MAX_ATTEMPTS) throw new Error(`booking ${id} was refused ${MAX_ATTEMPTS} times for no reason the policy knows`);
      }
    },
    { returns: { entity: BookingEntity.name, id }, singleStatement: true, recoveryPointInStatement: true },
  );
  // Its code in clear for the answer when this request stored it (a recovered retry's booking opens its own).
  if (ticket !== null && booking.ticketCodeSealed === ticket.sealed) booking.ticketCode = ticket.code;
  return booking;
}

/** Attempts of a booking that nothing refused (each: its event changed kind meanwhile, or the hint was wrong). */
const MAX_ATTEMPTS = 4;
