import { idErrors } from '../../../foundation/validation/arguments';
import type { TicketTypeEntity } from '../ticket-type.entity';
import { assertRemovable } from '../ticket-type.policy';
import { lockEventOfTicketType, removeUnsoldTicketType, storedTicketType } from '../ticket-type.repository';
import { AppError } from '../../../foundation/errors/app-error';
import { lockTicketTypePool } from '../../inventory/inventory.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { ticketTypeOutbox } from '../ticket-type.webhooks';
import { inUnitOfWork, withinTransaction } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';

/** Reads of a ticket type that was sold on the locked row and unsold on the read (each a booking cancelled between). */
const MAX_ATTEMPTS = 5;

/**
 * Mutation.removeTicketType (D6): only a type nothing is sold of; its cancelled bookings stay, without a
 * type. One statement locks the event, then the ticket type, and deletes it while unsold,
 * with its ticket_type.deleted message (D19);
 * when it deletes nothing, the reason is worked out from the stored type.
 */
export async function removeTicketType(scope: UnitOfWorkScope, organizationId: string, id: string): Promise<TicketTypeEntity> {
  assertValidInput(idErrors('id', id, 'tt'));
  const outbox = ticketTypeOutbox(organizationId, 'ticket_type.deleted');
  return inUnitOfWork(
    scope,
    async (tx) => {
      for (let attempt = 1; ; attempt += 1) {
        const removed = await removeUnsoldTicketType(tx, organizationId, id, outbox);
        if (removed) return removed;
        const stored = await storedTicketType(tx, organizationId, id);
        if (stored.slots > 0) {
          // A slotted ticket type (src/modules/inventory/): nothing sold in any of its slots, under their locks.
          const slotted = await withinTransaction(tx, async (locked) => {
            if (!(await lockEventOfTicketType(locked, organizationId, id))) throw AppError.ticketTypeNotFound(id);
            assertRemovable({ id, sold: (await lockTicketTypePool(locked, id)).sold });
            return removeUnsoldTicketType(locked, organizationId, id, outbox, true);
          });
          if (slotted) return slotted;
          if (attempt === MAX_ATTEMPTS) throw new Error(`removeTicketType: ${id} refused ${MAX_ATTEMPTS} times without a reason`);
          continue;
        }
        assertRemovable(stored);
        if (attempt === MAX_ATTEMPTS) throw new Error(`removeTicketType: ${id} refused ${MAX_ATTEMPTS} times without a reason`);
      }
    },
    { singleStatement: true },
  );
}
