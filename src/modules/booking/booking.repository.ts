import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import type { EventEntity } from '../event/event.entity';
import { OrganizationEntity } from '../organization/organization.entity';
import type { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { BookingEntity, BookingStatus } from './booking.entity';

/*
 * The only place that reaches the bookings table through the ORM (the batched pages of Event.bookings
 * are in booking-pages.loader.ts). The organization comes first: another organization's booking is
 * simply not found (D1).
 */

// ---- Read side ---------------------------------------------------------------------------------

/** The organization's booking `id`, or BOOKING_NOT_FOUND (another organization's included). */
export async function findById(em: EntityManager, organizationId: string, id: string): Promise<BookingEntity> {
  const booking = await em.findOne(BookingEntity, { id, organization: organizationId });
  if (!booking) throw AppError.bookingNotFound(id);
  return booking;
}

// ---- Write side --------------------------------------------------------------------------------

/** The event id of the organization's booking `id`, or BOOKING_NOT_FOUND (nothing is locked yet). */
export async function eventIdOfBooking(em: EntityManager, organizationId: string, id: string): Promise<string> {
  const found = await em.findOne(BookingEntity, { id, organization: organizationId });
  if (!found) throw AppError.bookingNotFound(id);
  return found.event.id;
}

/** The booking locked (after its event: the order every change takes), or BOOKING_NOT_FOUND. */
export async function lockById(em: EntityManager, id: string): Promise<BookingEntity> {
  const booking = await em.findOne(BookingEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!booking) throw AppError.bookingNotFound(id);
  return booking;
}

export function addBooking(
  em: EntityManager,
  organizationId: string,
  fields: { id?: string; event: EventEntity; ticketType: TicketTypeEntity | null; quantity: number; attendeeEmail: string; attendeeName: string },
): BookingEntity {
  return em.create(BookingEntity, { organization: em.getReference(OrganizationEntity, organizationId), ...fields });
}

/** Confirmed bookings of an event (D3: an event with any cannot be deleted). */
export async function countConfirmed(em: EntityManager, event: EventEntity): Promise<number> {
  return em.count(BookingEntity, { event, status: BookingStatus.CONFIRMED });
}
