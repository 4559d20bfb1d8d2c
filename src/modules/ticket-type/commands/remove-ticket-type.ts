import type { EntityManager } from '@mikro-orm/postgresql';
import { idErrors } from '../../../foundation/validation/arguments';
import type { TicketTypeEntity } from '../ticket-type.entity';
import { assertRemovable } from '../ticket-type.policy';
import { removeTicketType as removeRow } from '../ticket-type.repository';
import { lockTicketTypeWithEvent } from './lock-ticket-type';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/** Mutation.removeTicketType (D6): only a type nothing is sold of; its cancelled bookings stay, without a type. */
export async function removeTicketType(em: EntityManager, organizationId: string, id: string): Promise<TicketTypeEntity> {
  assertValidInput(idErrors('id', id, 'tt'));
  return inUnitOfWork(em, async (tx) => {
    const ticketType = await lockTicketTypeWithEvent(tx, organizationId, id);
    assertRemovable(ticketType);
    removeRow(tx, ticketType);
    // Emit what the change causes (webhook outbox rows, D18) here, in the same transaction.
    return ticketType;
  });
}
