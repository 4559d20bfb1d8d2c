import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { idErrors } from '../../../foundation/validation/arguments';
import { lockById as lockEvent } from '../../event/event.repository';
import { lockById as lockTicketType } from '../../ticket-type/ticket-type.repository';
import type { BookingEntity } from '../booking.entity';
import { BookingStatus } from '../booking.entity';
import { assertCancellable } from '../booking.policy';
import { eventIdOfBooking, lockById } from '../booking.repository';
import { enqueueWebhook } from '../../../platform/outbox/outbox';
import { presentBooking } from '../booking.presenter';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/** Mutation.cancelBooking (D7): gives the seats back, under the same locks, in the same order, as a booking. */
export async function cancelBooking(em: EntityManager, organizationId: string, id: string): Promise<BookingEntity> {
  assertValidInput(idErrors('id', id, 'bk'));

  return inUnitOfWork(em, async (tx) => {
    const event = await lockEvent(tx, await eventIdOfBooking(tx, organizationId, id));
    if (!event) throw AppError.bookingNotFound(id);
    const booking = await lockById(tx, id);
    assertCancellable(booking);
    const ticketType = booking.ticketType ? await lockTicketType(tx, booking.ticketType.id) : null;

    booking.status = BookingStatus.CANCELLED;
    booking.cancelledAt = new Date();
    event.registrationCount -= booking.quantity;
    if (ticketType) ticketType.sold -= booking.quantity;
    await enqueueWebhook(tx, organizationId, 'booking.cancelled', presentBooking(booking, event));
    return booking;
  });
}
