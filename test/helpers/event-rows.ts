import type { MikroORM } from '@mikro-orm/postgresql';
import { BookingEntity, BookingStatus } from '../../src/modules/booking/booking.entity';
import { EventEntity } from '../../src/modules/event/event.entity';
import { EventStatus } from '../../src/modules/event/event-status';
import { OrganizationEntity } from '../../src/modules/organization/organization.entity';
import { TicketTypeEntity } from '../../src/modules/ticket-type/ticket-type.entity';
import { uniqueSlug } from './factories';

const DAY = 24 * 3600 * 1000;

/** The stored row (fresh read, ticket types loaded), or null: what the database really holds. */
export function storedEvent(orm: MikroORM, where: { organizationId: string; slug: string }): Promise<EventEntity | null> {
  return orm.em
    .fork()
    .findOne(EventEntity, { organization: where.organizationId, slug: where.slug }, { populate: ['ticketTypes'] });
}

export function storedEventCount(orm: MikroORM, organizationId: string, where: Record<string, unknown> = {}): Promise<number> {
  return orm.em.fork().count(EventEntity, { organization: organizationId, ...where });
}

export function storedTicketTypeCount(orm: MikroORM, eventId: string): Promise<number> {
  return orm.em.fork().count(TicketTypeEntity, { event: eventId });
}

/** Rows inserted directly, bypassing the API (to control createdAt, dates in the past, status). */
export async function insertEvents(
  orm: MikroORM,
  organizationId: string,
  count: number,
  options: { createdAt?: Date; status?: EventStatus; startDate?: Date; endDate?: Date; ticketTypesEach?: number } = {},
): Promise<EventEntity[]> {
  const em = orm.em.fork();
  const start = options.startDate ?? new Date(Date.now() + 30 * DAY);
  const events = Array.from({ length: count }, (_, index) => {
    const event = em.create(EventEntity, {
      organization: em.getReference(OrganizationEntity, organizationId),
      slug: uniqueSlug('row'),
      title: `Row ${index}`,
      startDate: start,
      endDate: options.endDate ?? new Date(start.getTime() + 3600 * 1000),
      timezone: 'UTC',
      storedStatus: options.status ?? EventStatus.DRAFT,
      createdAt: options.createdAt ?? new Date(Date.now() - index * 1000),
    });
    for (let n = 0; n < (options.ticketTypesEach ?? 0); n += 1) {
      event.ticketTypes.add(em.create(TicketTypeEntity, { event, organizationId, name: `Type ${n}`, price: 10 + n, currency: 'EUR', quantity: 10 }));
    }
    return event;
  });
  await em.flush();
  return events;
}

/** Moves an event into the past (a PUBLISHED one then reads as COMPLETED). */
export async function moveIntoPast(orm: MikroORM, eventId: string): Promise<void> {
  const end = new Date(Date.now() - DAY);
  await orm.em.fork().nativeUpdate(EventEntity, { id: eventId }, { startDate: new Date(end.getTime() - 3600 * 1000), endDate: end });
}

export async function setStoredStatus(orm: MikroORM, eventId: string, status: EventStatus): Promise<void> {
  await orm.em.fork().nativeUpdate(EventEntity, { id: eventId }, { storedStatus: status });
}

/**
 * Bookings inserted directly, in a state the booking commands could have made: each confirmed one is
 * counted in the event's registrationCount and its ticket type's `sold`, as createBooking counts it
 * (the database's checks refuse more than the capacity or the ticket quantity). Confirmed ones block a
 * delete.
 */
export async function insertBookings(
  orm: MikroORM,
  event: { id: string; organizationId: string },
  statuses: BookingStatus[],
  ticketTypeId?: string,
): Promise<void> {
  const em = orm.em.fork();
  await em.transactional(async (tx) => {
    statuses.forEach((status, index) =>
      tx.create(BookingEntity, {
        organization: tx.getReference(OrganizationEntity, event.organizationId),
        event: tx.getReference(EventEntity, event.id),
        ticketType: ticketTypeId ? tx.getReference(TicketTypeEntity, ticketTypeId) : null,
        quantity: 1,
        attendeeEmail: `attendee${index}@example.com`,
        attendeeName: `Attendee ${index}`,
        status,
      }),
    );
    await tx.flush();
    const confirmed = statuses.filter((status) => status === BookingStatus.CONFIRMED).length;
    if (confirmed === 0) return;
    const connection = tx.getConnection();
    await connection.execute('update events set registration_count = registration_count + ? where id = ?', [confirmed, event.id]);
    if (ticketTypeId) await connection.execute('update ticket_types set sold = sold + ? where id = ?', [confirmed, ticketTypeId]);
  });
}
