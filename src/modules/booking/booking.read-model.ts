import type { EntityManager } from '@mikro-orm/postgresql';
import { idErrors, paginationErrors, slugErrors } from '../../foundation/validation/arguments';
import { idBySlug } from '../event/event.read-repository';
import { bookingListOf, bookingPageOf, type BookingQuery } from './booking-pages.loader';
import type { RequestContext } from '../../platform/graphql/request-context';
import { cursorErrors, cursorsOf, openCursor } from '../../platform/graphql/list-cursors';
import type { BookingEntity } from './booking.entity';
import { findById } from './booking.repository';
import type { BookingList } from './booking.types';
import { assertValidInput } from '../../foundation/validation/validate-input';

/* Booking reads: arguments checked, then the organization-scoped repository (the changes are commands, in commands/). */

/** Query.bookings: one event's bookings, newest first (EVENT_NOT_FOUND for another organization's event). */
export async function bookingPage(
  context: RequestContext,
  eventSlug: string,
  query: Omit<BookingQuery, 'after'> & { after?: string | null },
): Promise<BookingList> {
  assertValidInput(slugErrors('eventSlug', eventSlug), paginationErrors(query.page, query.limit), cursorErrors(query.page, query.after));
  const { em } = context;
  const organizationId = context.auth.organization.id;
  const cursors = cursorsOf(context);
  const eventId = await idBySlug(em, organizationId, eventSlug);
  const after = query.after != null ? openCursor(cursors, organizationId, bookingListOf(eventId, query.status), query.after) : null;
  return bookingPageOf(em, eventId, { ...query, after }, { cursors, organizationId });
}

/** Query.booking: one booking of the organization, or BOOKING_NOT_FOUND (another organization's included). */
export function bookingById(em: EntityManager, organizationId: string, id: string): Promise<BookingEntity> {
  assertValidInput(idErrors('id', id, 'bk'));
  return findById(em, organizationId, id);
}
