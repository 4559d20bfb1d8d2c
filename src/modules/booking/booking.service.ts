import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors/app-error';
import { paginationErrors, slugErrors } from '../../validation/arguments';
import { idBySlug } from '../event/event.repository';
import { bookingPageOf, type BookingQuery } from './booking-pages.loader';
import type { BookingList } from './booking.types';

/** Booking reads (the changes are commands, in commands/). */
export class BookingService {
  constructor(private readonly em: EntityManager) {}

  async list(organizationId: string, eventSlug: string, query: BookingQuery): Promise<BookingList> {
    const errors = [...slugErrors('eventSlug', eventSlug), ...paginationErrors(query.page, query.limit)];
    if (errors.length > 0) throw AppError.validation(errors);
    return bookingPageOf(this.em, await idBySlug(this.em, organizationId, eventSlug), query);
  }
}
