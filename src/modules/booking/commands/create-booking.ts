import type { EntityManager } from '@mikro-orm/postgresql';
import { idErrors, slugErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { assertBookable } from '../../event/event.policy';
import { lockBySlug } from '../../event/event.repository';
import { lockOfEvent } from '../../ticket-type/ticket-type.repository';
import { BookingEntity, newBookingId } from '../booking.entity';
import type { CreateBookingInput } from '../booking.inputs';
import { assertAvailable } from '../booking.policy';
import { addBooking } from '../booking.repository';
import { enqueueWebhook } from '../../../platform/outbox/outbox';
import { presentBooking } from '../booking.presenter';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/**
 * Mutation.createBooking (D7). One transaction locks the event row, then the ticket type row:
 * concurrent bookings of one event queue on that lock in every process, so the capacity checked is
 * the one written. The counts change in the same transaction; CHECK constraints are the backstop.
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
  return inUnitOfWork(
    em,
    async (tx) => {
      const event = await lockBySlug(tx, organizationId, input.eventSlug);
      assertBookable(event);
      const ticketType = input.ticketTypeId == null ? null : await lockOfEvent(tx, event, input.ticketTypeId);
      assertAvailable(event, ticketType, input.quantity);

      event.registrationCount += input.quantity;
      if (ticketType) ticketType.sold += input.quantity;
      const booking = addBooking(tx, organizationId, {
        id,
        event,
        ticketType,
        quantity: input.quantity,
        attendeeEmail: input.attendeeEmail,
        attendeeName: input.attendeeName.trim(),
      });
      await enqueueWebhook(tx, organizationId, 'booking.created', presentBooking(booking, event));
      return booking;
    },
    { returns: { entity: BookingEntity.name, id } },
  );
}
