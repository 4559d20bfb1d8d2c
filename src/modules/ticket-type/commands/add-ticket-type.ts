import { AppError } from '../../../foundation/errors/app-error';
import { slugErrors } from '../../../foundation/validation/arguments';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import type { TicketTypeEntity } from '../ticket-type.entity';
import type { TicketTypeInput } from '../ticket-type.inputs';
import { ticketTypeCountErrors } from '../ticket-type.policy';
import { lockEventAndAddTicketType } from '../ticket-type.repository';
import { ticketTypeOutbox } from '../ticket-type.webhooks';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';

/**
 * Mutation.addTicketType (D6): at most MAX_TICKET_TYPES per event, under the event's lock; the insert's
 * statement writes the ticket_type.created message (D19). Two
 * statements in the transaction: the lock, then the insert that counts the event's types (a count in
 * the lock's own statement would not see the types added by whoever held the lock before).
 */
export async function addTicketType(
  scope: UnitOfWorkScope,
  organizationId: string,
  eventSlug: string,
  input: TicketTypeInput,
): Promise<TicketTypeEntity> {
  assertValidInput(slugErrors('eventSlug', eventSlug), input);
  return inUnitOfWork(scope, async (tx) => {
    const { name, price, currency, quantity } = input;
    const added = await lockEventAndAddTicketType(tx, organizationId, eventSlug, { name, price, currency, quantity }, ticketTypeOutbox(organizationId, 'ticket_type.created'));
    if ('eventFound' in added) {
      if (!added.eventFound) throw AppError.eventNotFound(eventSlug);
      // A second pass, under the event's lock: the count of its types is stored state.
      assertValidInput(ticketTypeCountErrors(added.count));
      throw new Error(`addTicketType: nothing added to ${eventSlug} with ${added.count} ticket types`);
    }
    return added;
  });
}
