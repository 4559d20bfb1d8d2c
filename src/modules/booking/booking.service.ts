import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors/app-error';
import { idErrors, paginationErrors, slugErrors } from '../../validation/arguments';
import { validateInput } from '../../validation/validate-input';
import { EventEntity } from '../event/event.entity';
import { EventStatus } from '../event/event-status';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { ticketTypeNotFound } from '../ticket-type/ticket-type.service';
import { bookingPageOf } from './booking-pages.loader';
import { BookingEntity, BookingStatus } from './booking.entity';
import type { CreateBookingInput } from './booking.inputs';
import type { BookingList } from './booking.types';
import { bookingWebhookData, enqueueWebhook } from '../webhook/webhook-outbox';

export interface BookingQuery {
  page: number;
  limit: number;
  status?: BookingStatus | null;
}

function bookingNotFound(id: string): AppError {
  return new AppError('BOOKING_NOT_FOUND', `No booking with id "${id}"`, { id });
}

/**
 * Bookings and the counts they drive (D7). Every change runs in one transaction that locks the event
 * row (SELECT … FOR UPDATE), then the booking and ticket type rows: concurrent bookings of one event
 * queue on that lock in every process, so the checked capacity is the one written. The counts are
 * written in the same transaction; CHECK constraints in the database are the backstop.
 */
export class BookingService {
  constructor(private readonly em: EntityManager) {}

  async create(organizationId: string, input: CreateBookingInput): Promise<BookingEntity> {
    const errors = [
      ...slugErrors('eventSlug', input.eventSlug),
      ...(input.ticketTypeId == null ? [] : idErrors('ticketTypeId', input.ticketTypeId, 'tt')),
      ...validateInput(input),
    ];
    if (errors.length > 0) throw AppError.validation(errors);

    return this.em.transactional(async (em) => {
      const event = await em.findOne(
        EventEntity,
        { organization: organizationId, slug: input.eventSlug },
        { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
      );
      if (!event) throw AppError.eventNotFound(input.eventSlug);
      if (event.status !== EventStatus.PUBLISHED) {
        throw new AppError('EVENT_NOT_PUBLISHED', `Only a PUBLISHED event can be booked; this one is ${event.status}`, {
          slug: event.slug,
          status: event.status,
        });
      }
      const ticketType =
        input.ticketTypeId == null
          ? null
          : await em.findOne(
              TicketTypeEntity,
              { id: input.ticketTypeId, event },
              { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
            );
      if (input.ticketTypeId != null && !ticketType) throw ticketTypeNotFound(input.ticketTypeId);

      assertAvailable(event, ticketType, input.quantity);
      event.registrationCount += input.quantity;
      if (ticketType) ticketType.sold += input.quantity;
      const booking = em.create(BookingEntity, {
        organization: em.getReference(OrganizationEntity, organizationId),
        event,
        ticketType,
        quantity: input.quantity,
        attendeeEmail: input.attendeeEmail,
        attendeeName: input.attendeeName.trim(),
      });
      await enqueueWebhook(em, organizationId, 'booking.created', bookingWebhookData(booking, event));
      return booking;
    });
  }

  /** Gives the seats back. A booking is cancelled once: a second cancel changes nothing and says so. */
  async cancel(organizationId: string, id: string): Promise<BookingEntity> {
    const errors = idErrors('id', id, 'bk');
    if (errors.length > 0) throw AppError.validation(errors);

    return this.em.transactional(async (em) => {
      const found = await em.findOne(BookingEntity, { id, organization: organizationId });
      if (!found) throw bookingNotFound(id);
      const lock = { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } as const;
      const event = await em.findOne(EventEntity, { id: found.event.id }, lock);
      const booking = event && (await em.findOne(BookingEntity, { id }, lock));
      if (!event || !booking) throw bookingNotFound(id);
      if (booking.status === BookingStatus.CANCELLED) {
        throw new AppError('BOOKING_ALREADY_CANCELLED', 'This booking is already cancelled', {
          id,
          cancelledAt: booking.cancelledAt?.toISOString() ?? null,
        });
      }
      const ticketType = booking.ticketType ? await em.findOne(TicketTypeEntity, { id: booking.ticketType.id }, lock) : null;
      booking.status = BookingStatus.CANCELLED;
      booking.cancelledAt = new Date();
      event.registrationCount -= booking.quantity;
      if (ticketType) ticketType.sold -= booking.quantity;
      await enqueueWebhook(em, organizationId, 'booking.cancelled', bookingWebhookData(booking, event));
      return booking;
    });
  }

  async list(organizationId: string, eventSlug: string, query: BookingQuery): Promise<BookingList> {
    const errors = [...slugErrors('eventSlug', eventSlug), ...paginationErrors(query.page, query.limit)];
    if (errors.length > 0) throw AppError.validation(errors);
    const event = await this.em.findOne(EventEntity, { organization: organizationId, slug: eventSlug });
    if (!event) throw AppError.eventNotFound(eventSlug);
    return bookingPageOf(this.em, event.id, query);
  }

}

/** SOLD_OUT when the event's capacity or the ticket type's quantity cannot take `requested` more seats. */
function assertAvailable(event: EventEntity, ticketType: TicketTypeEntity | null, requested: number): void {
  const limits: Array<{ limitedBy: 'capacity' | 'ticketType'; available: number }> = [];
  if (event.capacity !== null) limits.push({ limitedBy: 'capacity', available: event.capacity - event.registrationCount });
  if (ticketType) limits.push({ limitedBy: 'ticketType', available: ticketType.quantity - ticketType.sold });
  const tightest = limits.filter((limit) => limit.available < requested).sort((a, b) => a.available - b.available)[0];
  if (!tightest) return;
  const what = tightest.limitedBy === 'capacity' ? "the event's capacity" : 'this ticket type';
  throw new AppError(
    'SOLD_OUT',
    tightest.available === 0 ? `Sold out: ${what} has no seats left` : `Only ${tightest.available} left for ${what}; ${requested} requested`,
    {
      limitedBy: tightest.limitedBy,
      available: Math.max(0, tightest.available),
      requested,
      ...(tightest.limitedBy === 'ticketType' && ticketType ? { ticketTypeId: ticketType.id } : {}),
    },
  );
}
