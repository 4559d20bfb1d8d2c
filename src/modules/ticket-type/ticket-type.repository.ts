import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import type { EventEntity } from '../event/event.entity';
import { TicketTypeEntity } from './ticket-type.entity';

/*
 * The only place that reaches the ticket_types table through the ORM. Changes lock the event row
 * first, then the ticket type row: the order bookings use, so a quantity change and a booking of the
 * same type never interleave or deadlock.
 */

/** The event id of the organization's ticket type `id`, or TICKET_TYPE_NOT_FOUND (nothing locked yet). */
export async function eventIdOfTicketType(em: EntityManager, organizationId: string, id: string): Promise<string> {
  const found = await em.findOne(TicketTypeEntity, { id, event: { organization: organizationId } });
  if (!found) throw AppError.ticketTypeNotFound(id);
  return found.event.id;
}

/** A ticket type of `event`, locked (take the event's lock first), or TICKET_TYPE_NOT_FOUND. */
export async function lockOfEvent(em: EntityManager, event: EventEntity, id: string): Promise<TicketTypeEntity> {
  const ticketType = await em.findOne(TicketTypeEntity, { id, event }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!ticketType) throw AppError.ticketTypeNotFound(id);
  return ticketType;
}

/** The ticket type `id` locked, whatever its event (reached from a booking of that event). */
export async function lockById(em: EntityManager, id: string): Promise<TicketTypeEntity | null> {
  return em.findOne(TicketTypeEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
}

export async function countOfEvent(em: EntityManager, event: EventEntity): Promise<number> {
  return em.count(TicketTypeEntity, { event });
}

export function addTicketType(
  em: EntityManager,
  event: EventEntity,
  fields: { name: string; price: number; currency: string; quantity: number },
): TicketTypeEntity {
  return em.create(TicketTypeEntity, { event, ...fields });
}

export function removeTicketType(em: EntityManager, ticketType: TicketTypeEntity): void {
  em.remove(ticketType);
}

/**
 * The event's ticket types as stored now, in the order reads show them (creation, then id): read again
 * in the caller's transaction (`refresh`), so types added or removed through another path of the same
 * unit of work show as they commit.
 */
export async function ofEvent(em: EntityManager, event: EventEntity): Promise<TicketTypeEntity[]> {
  return em.find(TicketTypeEntity, { event }, { orderBy: { createdAt: 'asc', id: 'asc' }, refresh: true });
}
