import type { EntityManager } from '@mikro-orm/postgresql';
import { idErrors, slugErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { AppError } from '../../../foundation/errors/app-error';
import { assertBookable } from '../../event/event.policy';
import { BookingEntity, BookingStatus, newBookingId } from '../booking.entity';
import type { CreateBookingInput } from '../booking.inputs';
import { assertAvailable } from '../booking.policy';
import { bookSeats } from '../booking.repository';
import { presentBooking } from '../booking.presenter';
import { hole } from '../../../platform/outbox/outbox';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/**
 * Mutation.createBooking (D7). One statement (booking.repository.ts bookSeats) locks the event row,
 * then the ticket type row, and books only when the rules of booking.policy.ts hold on those locked
 * rows: concurrent bookings of one event queue on that lock in every process, so the capacity checked
 * is the one written, and the lock is held for that statement and its commit only. The reason for a
 * refusal is worked out afterwards, from what the statement found. CHECK constraints are the backstop.
 */
export async function createBooking(em: EntityManager, organizationId: string, input: CreateBookingInput): Promise<BookingEntity> {
  assertValidInput(
    slugErrors('eventSlug', input.eventSlug),
    input.ticketTypeId == null ? [] : idErrors('ticketTypeId', input.ticketTypeId, 'tt'),
    input,
  );

  // The booking's id is made first, so that with an Idempotency-Key the recovery point is written
  // before the event's row lock is taken (the unit of work's `returns`), not while it is held.
  const id = newBookingId();
  const fields = {
    id,
    eventSlug: input.eventSlug,
    ticketTypeId: input.ticketTypeId ?? null,
    quantity: input.quantity,
    attendeeEmail: input.attendeeEmail,
    attendeeName: input.attendeeName.trim(),
    createdAt: new Date(),
  };
  // booking.created carries the booking as the API shows it; the event's id comes from the statement.
  const webhookData = presentBooking(
    { ...fields, ticketType: fields.ticketTypeId === null ? null : { id: fields.ticketTypeId }, status: BookingStatus.CONFIRMED, cancelledAt: null },
    { id: hole(), slug: input.eventSlug },
  );
  return inUnitOfWork(
    em,
    async (tx) => {
      const { booking, event, ticketType } = await bookSeats(tx, organizationId, fields, webhookData);
      if (booking) return booking;
      // Refused: why, in the order the rules are read (D7).
      if (!event) throw AppError.eventNotFound(input.eventSlug);
      assertBookable(event);
      if (fields.ticketTypeId !== null && !ticketType) throw AppError.ticketTypeNotFound(fields.ticketTypeId);
      assertAvailable(event, ticketType, input.quantity);
      throw new Error(`booking ${id} was refused for no reason the policy knows`);
    },
    { returns: { entity: BookingEntity.name, id }, singleStatement: true },
  );
}
