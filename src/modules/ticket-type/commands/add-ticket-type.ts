import type { EntityManager } from '@mikro-orm/postgresql';
import { slugErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { lockBySlug } from '../../event/event.repository';
import type { TicketTypeEntity } from '../ticket-type.entity';
import type { TicketTypeInput } from '../ticket-type.inputs';
import { ticketTypeCountErrors } from '../ticket-type.policy';
import { addTicketType as addRow, countOfEvent } from '../ticket-type.repository';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/** Mutation.addTicketType (D6): at most MAX_TICKET_TYPES per event, under the event's lock. */
export async function addTicketType(
  em: EntityManager,
  organizationId: string,
  eventSlug: string,
  input: TicketTypeInput,
): Promise<TicketTypeEntity> {
  assertValidInput(slugErrors('eventSlug', eventSlug), input);
  return inUnitOfWork(em, async (tx) => {
    const event = await lockBySlug(tx, organizationId, eventSlug);
    // A second pass, under the event's lock: the count of its types is stored state.
    assertValidInput(ticketTypeCountErrors(await countOfEvent(tx, event)));
    const { name, price, currency, quantity } = input;
    // Emit what the change causes (webhook outbox rows, D18) here, in the same transaction.
    return addRow(tx, event, { name, price, currency, quantity });
  });
}
