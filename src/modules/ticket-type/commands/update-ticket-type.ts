import type { EntityManager } from '@mikro-orm/postgresql';
import { idErrors } from '../../../foundation/validation/arguments';
import { assertValidInput, inputErrors } from '../../../foundation/validation/validate-input';
import type { TicketTypeEntity } from '../ticket-type.entity';
import type { TicketTypeUpdateInput } from '../ticket-type.inputs';
import { quantityErrors } from '../ticket-type.policy';
import { lockTicketTypeWithEvent } from './lock-ticket-type';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

const SETTABLE_FIELDS = ['name', 'price', 'currency', 'quantity'] as const;

/** Mutation.updateTicketType (D6): the given fields change; quantity never below sold. */
export async function updateTicketType(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: TicketTypeUpdateInput,
): Promise<TicketTypeEntity> {
  const errors = inputErrors(idErrors('id', id, 'tt'), input);
  // A malformed id can name no ticket type: answered before looking; other errors wait for the
  // stored state, so one answer names every failing field.
  if (errors.some((error) => error.field === 'id')) assertValidInput(errors);
  return inUnitOfWork(em, async (tx) => {
    const ticketType = await lockTicketTypeWithEvent(tx, organizationId, id);
    assertValidInput(errors, errors.some((error) => error.field === 'quantity') ? [] : quantityErrors(input.quantity, ticketType.sold));
    for (const field of SETTABLE_FIELDS) if (input[field] != null) Object.assign(ticketType, { [field]: input[field] });
    // Emit what the change causes (webhook outbox rows, D18) here, in the same transaction.
    return ticketType;
  });
}
