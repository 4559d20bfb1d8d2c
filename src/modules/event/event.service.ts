import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldError } from '../../errors/app-error';
import { paginationErrors } from '../../validation/arguments';
import { validateInput } from '../../validation/validate-input';
import type { OrganizationSnapshot } from '../../auth/auth-context';
import { BookingEntity, BookingStatus } from '../booking/booking.entity';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { canonicalTimeZone, statusFilter } from './event.queries';
import { EventEntity } from './event.entity';
import { eventView, type EventRow } from './event.read-model';
import type { CreateEventInput, UpdateEventInput } from './event.inputs';
import { assertMutableFields, statusChangeErrors } from './event.policy';
import { EventStatus } from './event-status';
import { enqueueEventWebhook, enqueueWebhook } from '../webhook/webhook-outbox';

export interface EventPage {
  events: EventEntity[];
  total: number;
  page: number;
  limit: number;
}

export { DEFAULT_LIMIT as DEFAULT_PAGE_SIZE, MAX_LIMIT as MAX_PAGE_SIZE } from '../../validation/arguments';

const duplicateSlug = (slug: string): FieldError => ({ field: 'slug', message: `an event with slug "${slug}" already exists` });

/** Event rules and storage. Every method takes the caller's organization first: nothing crosses it. */
export class EventService {
  constructor(private readonly em: EntityManager) {}

  async list(organizationId: string, query: { page: number; limit: number; status?: EventStatus | null }): Promise<EventPage> {
    const errors = paginationErrors(query.page, query.limit);
    if (errors.length > 0) throw AppError.validation(errors);

    const now = new Date();
    const where = { $and: [{ organization: organizationId }, statusFilter(query.status ?? undefined, now)] };
    const rows = await this.em
      .createQueryBuilder(EventEntity)
      .select('*')
      .where(where)
      .orderBy({ createdAt: 'desc', id: 'desc' })
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute<EventRow[]>('all', true);
    const total = await this.em.count(EventEntity, where);
    return { events: rows.map(eventView), total, page: query.page, limit: query.limit };
  }

  /** The event with its ticket types (two statements), or EVENT_NOT_FOUND. */
  async get(organizationId: string, slug: string): Promise<EventEntity> {
    const event = await this.em.findOne(
      EventEntity,
      { organization: organizationId, slug },
      { populate: ['ticketTypes'] },
    );
    if (!event) throw AppError.eventNotFound(slug);
    return event;
  }

  async create(organization: OrganizationSnapshot, input: CreateEventInput): Promise<EventEntity> {
    const now = new Date();
    // Field rules, the future start and the end after the start included (see CreateEventInput).
    const errors = validateInput(input);
    if (await this.slugTaken(organization.id, input.slug)) errors.push(duplicateSlug(input.slug));
    if (errors.length > 0) throw AppError.validation(errors);

    return this.guardingSlug(input.slug, () =>
      this.em.transactional(async (em) => {
        const event = em.create(EventEntity, {
          organization: em.getReference(OrganizationEntity, organization.id),
          slug: input.slug,
          title: input.title,
          description: input.description ?? null,
          startDate: input.startDate,
          endDate: input.endDate,
          timezone: canonicalTimeZone(input.timezone ?? organization.timezone),
          venue: input.venue ?? null,
          capacity: input.capacity ?? null,
          createdAt: now,
          updatedAt: now,
        });
        (input.ticketTypes ?? []).forEach((ticketType, index) => {
          // Distinct creation times keep the ticket types in the order they were given.
          const createdAt = new Date(now.getTime() + index);
          event.ticketTypes.add(em.create(TicketTypeEntity, { ...ticketType, event, createdAt }));
        });
        await enqueueEventWebhook(em, organization.id, event, true);
        return event;
      }),
    );
  }

  async update(organizationId: string, slug: string, input: UpdateEventInput): Promise<EventEntity> {
    const formatErrors = [...validateInput(input), ...nullErrors(input)];
    if (formatErrors.length > 0) throw AppError.validation(formatErrors);

    await this.em.transactional(async (em) => {
      // The row lock serializes updates, deletes and bookings of one event.
      const event = await em.findOne(
        EventEntity,
        { organization: organizationId, slug },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!event) throw AppError.eventNotFound(slug);
      assertMutableFields(event, input);

      const errors: FieldError[] = [];
      if (input.status != null) errors.push(...statusChangeErrors(event.status, input.status));
      const startDate = input.startDate ?? event.startDate;
      const endDate = input.endDate ?? event.endDate;
      const startChanged = input.startDate != null && input.startDate.getTime() !== event.startDate.getTime();
      if (startChanged && startDate.getTime() <= Date.now()) {
        errors.push({ field: 'startDate', message: 'startDate must be in the future' });
      }
      if ((input.startDate != null || input.endDate != null) && endDate.getTime() <= startDate.getTime()) {
        errors.push({ field: 'endDate', message: 'endDate must be after startDate' });
      }
      if (input.capacity != null && input.capacity < event.registrationCount) {
        errors.push({
          field: 'capacity',
          message: `capacity cannot be below the ${event.registrationCount} registrations already made`,
        });
      }
      if (input.slug != null && input.slug !== event.slug && (await this.slugTaken(organizationId, input.slug, em))) {
        errors.push(duplicateSlug(input.slug));
      }
      if (errors.length > 0) throw AppError.validation(errors);

      em.assign(event, {
        ...definedFields(input, ['title', 'slug', 'description', 'startDate', 'endDate', 'venue', 'capacity']),
        ...(input.timezone != null ? { timezone: canonicalTimeZone(input.timezone) } : {}),
        ...(input.status != null ? { storedStatus: input.status } : {}),
      });
      await enqueueEventWebhook(em, organizationId, event);
    }).catch((error: unknown) => {
      if (error instanceof UniqueConstraintViolationException && input.slug) throw AppError.validation([duplicateSlug(input.slug)]);
      throw error;
    });
    return this.get(organizationId, input.slug ?? slug);
  }

  async delete(organizationId: string, slug: string): Promise<EventEntity> {
    return this.em.transactional(async (em) => {
      const event = await em.findOne(
        EventEntity,
        { organization: organizationId, slug },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!event) throw AppError.eventNotFound(slug);
      const bookingCount = await em.count(BookingEntity, { event, status: BookingStatus.CONFIRMED });
      if (bookingCount > 0) {
        throw new AppError(
          'EVENT_HAS_BOOKINGS',
          `The event has ${bookingCount} confirmed booking${bookingCount === 1 ? '' : 's'}; cancel the event instead, or cancel the bookings first`,
          { bookingCount },
        );
      }
      // Ticket types and cancelled bookings go with it (ON DELETE CASCADE).
      await em.nativeDelete(EventEntity, { id: event.id });
      await enqueueWebhook(em, organizationId, 'event.deleted', { id: event.id, slug: event.slug });
      return event;
    });
  }

  private async slugTaken(organizationId: string, slug: string, em: EntityManager = this.em): Promise<boolean> {
    return (await em.count(EventEntity, { organization: organizationId, slug })) > 0;
  }

  /** Two requests can both pass the pre-check: the unique index decides, and the loser gets the 400. */
  private async guardingSlug<T>(slug: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw AppError.validation([duplicateSlug(slug)]);
      throw error;
    }
  }
}

const REQUIRED_ON_UPDATE = ['title', 'slug', 'startDate', 'endDate', 'timezone', 'status'] as const;

function nullErrors(input: UpdateEventInput): FieldError[] {
  return REQUIRED_ON_UPDATE.filter((field) => input[field] === null).map((field) => ({
    field,
    message: `${field} cannot be null`,
  }));
}

function definedFields<T extends object, K extends keyof T>(input: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (input[key] !== undefined) out[key] = input[key];
  return out;
}
