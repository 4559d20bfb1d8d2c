import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { EventEntity } from './event.entity';
import { duplicateSlugError } from './event.policy';

/*
 * The only place that reaches the events table through the ORM. The organization is always the first
 * argument after the entity manager: another organization's event is simply not found (D1).
 */

// ---- Write side: locks and changes (used by the commands) -------------------------------------

/**
 * The event, locked for the rest of the transaction (SELECT … FOR UPDATE), or EVENT_NOT_FOUND. The row
 * lock serializes updates, deletes, bookings and ticket type changes of one event, in every process.
 */
export async function lockBySlug(em: EntityManager, organizationId: string, slug: string): Promise<EventEntity> {
  const event = await em.findOne(
    EventEntity,
    { organization: organizationId, slug },
    { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  if (!event) throw AppError.eventNotFound(slug);
  return event;
}

/** Locks an event already known by id (reached through one of its bookings or ticket types). */
export async function lockById(em: EntityManager, eventId: string): Promise<EventEntity | null> {
  return em.findOne(EventEntity, { id: eventId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
}

export async function slugTaken(em: EntityManager, organizationId: string, slug: string): Promise<boolean> {
  return (await em.count(EventEntity, { organization: organizationId, slug })) > 0;
}

export interface NewEvent {
  slug: string;
  title: string;
  description: string | null;
  startDate: Date;
  endDate: Date;
  timezone: string;
  venue: string | null;
  venueAddress: string | null;
  coverImage: string | null;
  capacity: number | null;
  ticketTypes: ReadonlyArray<{ name: string; price: number; currency: string; quantity: number }>;
}

/** Adds a new event with its ticket types (in the order given) to the unit of work. */
export function addEvent(em: EntityManager, organizationId: string, fields: NewEvent, now: Date): EventEntity {
  const { ticketTypes, ...eventFields } = fields;
  const event = em.create(EventEntity, {
    ...eventFields,
    organization: em.getReference(OrganizationEntity, organizationId),
    createdAt: now,
    updatedAt: now,
  });
  ticketTypes.forEach((ticketType, index) => {
    // Distinct creation times keep the ticket types in the order they were given.
    const createdAt = new Date(now.getTime() + index);
    event.ticketTypes.add(em.create(TicketTypeEntity, { ...ticketType, event, createdAt }));
  });
  return event;
}

export async function deleteEvent(em: EntityManager, event: EventEntity): Promise<void> {
  // Ticket types and cancelled bookings go with it (ON DELETE CASCADE).
  await em.nativeDelete(EventEntity, { id: event.id });
}

/**
 * Runs `work`; two requests can both pass the slug pre-check, so the unique index decides and the
 * loser gets the same 400 as a sequential duplicate (D1), never a 500.
 */
export async function guardingSlug<T>(slug: string | null | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException && slug) throw AppError.validation([duplicateSlugError(slug)]);
    throw error;
  }
}

// ---- Read side ---------------------------------------------------------------------------------

/** The event with its ticket types (two statements), or EVENT_NOT_FOUND. */
export async function findBySlug(em: EntityManager, organizationId: string, slug: string): Promise<EventEntity> {
  const event = await em.findOne(EventEntity, { organization: organizationId, slug }, { populate: ['ticketTypes'] });
  if (!event) throw AppError.eventNotFound(slug);
  return event;
}

/** The id of the organization's event `slug` (one statement), or EVENT_NOT_FOUND. */
export async function idBySlug(em: EntityManager, organizationId: string, slug: string): Promise<string> {
  const event = await em.findOne(EventEntity, { organization: organizationId, slug });
  if (!event) throw AppError.eventNotFound(slug);
  return event.id;
}
