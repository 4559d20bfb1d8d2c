import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors/app-error';
import { idErrors, paginationErrors, slugErrors } from '../../validation/arguments';
import { idBySlug } from '../event/event.repository';
import { bookingPageOf, type BookingQuery } from './booking-pages.loader';
import { BookingEntity } from './booking.entity';
import type { BookingList } from './booking.types';

/** Booking reads (the changes are commands, in commands/). */
export class BookingService {
  constructor(private readonly em: EntityManager) {}

  async list(organizationId: string, eventSlug: string, query: BookingQuery): Promise<BookingList> {
    const errors = [...slugErrors('eventSlug', eventSlug), ...paginationErrors(query.page, query.limit)];
    if (errors.length > 0) throw AppError.validation(errors);
    return bookingPageOf(this.em, await idBySlug(this.em, organizationId, eventSlug), query);
  }

  /** One booking of the organization, or BOOKING_NOT_FOUND (another organization's included). */
  async get(organizationId: string, id: string): Promise<BookingEntity> {
    const errors = idErrors('id', id, 'bk');
    if (errors.length > 0) throw AppError.validation(errors);
    const booking = await this.em.findOne(BookingEntity, { id, organization: organizationId });
    if (!booking) throw AppError.bookingNotFound(id);
    return booking;
  }
}
