import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldError } from '../../errors/app-error';
import { idErrors, slugErrors } from '../../validation/arguments';
import { validateInput } from '../../validation/validate-input';
import { EventEntity } from '../event/event.entity';
import { MAX_TICKET_TYPES } from '../event/event.inputs';
import { TicketTypeEntity } from './ticket-type.entity';
import type { TicketTypeInput, TicketTypeUpdateInput } from './ticket-type.inputs';

export function ticketTypeNotFound(id: string): AppError {
  return new AppError('TICKET_TYPE_NOT_FOUND', `No ticket type with id "${id}"`, { id });
}

const UPDATABLE = ['name', 'price', 'currency', 'quantity'] as const;

/**
 * Ticket type changes (D6). Each one locks the event row first, then the ticket type row: the order
 * bookings use, so a quantity change and a booking of the same type never interleave or deadlock.
 */
export class TicketTypeService {
  constructor(private readonly em: EntityManager) {}

  async add(organizationId: string, eventSlug: string, input: TicketTypeInput): Promise<TicketTypeEntity> {
    const errors = [...slugErrors('eventSlug', eventSlug), ...validateInput(input)];
    if (errors.length > 0) throw AppError.validation(errors);
    return this.em.transactional(async (em) => {
      const event = await em.findOne(
        EventEntity,
        { organization: organizationId, slug: eventSlug },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!event) throw AppError.eventNotFound(eventSlug);
      if ((await em.count(TicketTypeEntity, { event })) >= MAX_TICKET_TYPES) {
        throw AppError.validation([{ field: 'eventSlug', message: `an event has at most ${MAX_TICKET_TYPES} ticket types` }]);
      }
      const { name, price, currency, quantity } = input;
      return em.create(TicketTypeEntity, { event, name, price, currency, quantity });
    });
  }

  async update(organizationId: string, id: string, input: TicketTypeUpdateInput): Promise<TicketTypeEntity> {
    const errors = [...idErrors('id', id, 'tt'), ...validateInput(input), ...nullErrors(input)];
    if (errors.some((error) => error.field === 'id')) throw AppError.validation(errors);
    return this.em.transactional(async (em) => {
      const ticketType = await this.lock(em, organizationId, id);
      // Reported with the format errors, so one answer names every failing field.
      if (input.quantity != null && input.quantity < ticketType.sold && !errors.some((error) => error.field === 'quantity')) {
        errors.push({ field: 'quantity', message: `quantity cannot be below the ${ticketType.sold} tickets already sold` });
      }
      if (errors.length > 0) throw AppError.validation(errors);
      for (const field of UPDATABLE) if (input[field] != null) Object.assign(ticketType, { [field]: input[field] });
      return ticketType;
    });
  }

  /** Removes a type nothing is sold of; its cancelled bookings stay, without a ticket type. */
  async remove(organizationId: string, id: string): Promise<TicketTypeEntity> {
    const errors = idErrors('id', id, 'tt');
    if (errors.length > 0) throw AppError.validation(errors);
    return this.em.transactional(async (em) => {
      const ticketType = await this.lock(em, organizationId, id);
      if (ticketType.sold > 0) {
        throw new AppError(
          'TICKET_TYPE_HAS_SALES',
          `${ticketType.sold} ticket${ticketType.sold === 1 ? ' is' : 's are'} sold of this type; cancel those bookings first, or set its quantity to the number sold to stop sales`,
          { id, sold: ticketType.sold },
        );
      }
      em.remove(ticketType);
      return ticketType;
    });
  }

  /** The organization's ticket type, its event and then itself locked (another organization's: not found). */
  private async lock(em: EntityManager, organizationId: string, id: string): Promise<TicketTypeEntity> {
    const found = await em.findOne(TicketTypeEntity, { id, event: { organization: organizationId } });
    if (!found) throw ticketTypeNotFound(id);
    const event = await em.findOne(EventEntity, { id: found.event.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const ticketType = event && (await em.findOne(TicketTypeEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true }));
    if (!ticketType) throw ticketTypeNotFound(id);
    return ticketType;
  }
}

function nullErrors(input: TicketTypeUpdateInput): FieldError[] {
  return UPDATABLE.filter((field) => input[field] === null).map((field) => ({ field, message: `${field} cannot be null` }));
}
