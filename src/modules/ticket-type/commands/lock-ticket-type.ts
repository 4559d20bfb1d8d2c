import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { lockById as lockEvent } from '../../event/event.repository';
import type { TicketTypeEntity } from '../ticket-type.entity';
import { eventIdOfTicketType, lockOfEvent } from '../ticket-type.repository';

/** The organization's ticket type, its event locked first and then itself (another organization's: not found). */
export async function lockTicketTypeWithEvent(tx: EntityManager, organizationId: string, id: string): Promise<TicketTypeEntity> {
  const event = await lockEvent(tx, await eventIdOfTicketType(tx, organizationId, id));
  if (!event) throw AppError.ticketTypeNotFound(id);
  return lockOfEvent(tx, event, id);
}
