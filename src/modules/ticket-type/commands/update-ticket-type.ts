import type { EntityManager } from '@mikro-orm/postgresql';
import { idErrors } from '../../../foundation/validation/arguments';
import { assertValidInput, inputErrors } from '../../../foundation/validation/validate-input';
import type { TicketTypeEntity } from '../ticket-type.entity';
import type { TicketTypeUpdateInput } from '../ticket-type.inputs';
import { quantityErrors } from '../ticket-type.policy';
import { lockEventOfTicketType, storedTicketType, updateTicketTypeFields } from '../ticket-type.repository';
import { AppError } from '../../../foundation/errors/app-error';
import { lockTicketTypePool, reshareRoom } from '../../inventory/inventory.repository';
import { inUnitOfWork, withinTransaction } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { offeringFreedSeats } from '../../waitlist/commands/offer-seats';
import { ticketTypeOutbox } from '../ticket-type.webhooks';

/** Reads of a ticket type whose quantity check failed on the locked row and passed on the read (each a booking cancelled between). */
const MAX_ATTEMPTS = 5;

/**
 * Mutation.updateTicketType (D6): the given fields change; quantity never below sold. One statement
 * locks the event, then the ticket type, and applies the change while the quantity stays at least the
 * tickets sold, with its ticket_type.updated message (D19: none for an input without a
 * field); when it changes nothing, the reason is worked out from the stored type.
 */
export async function updateTicketType(
  scope: UnitOfWorkScope,
  organizationId: string,
  id: string,
  input: TicketTypeUpdateInput,
): Promise<TicketTypeEntity> {
  const errors = inputErrors(idErrors('id', id, 'tt'), input);
  // A malformed id can name no ticket type: answered before looking; other errors wait for the
  // stored state, so one answer names every failing field.
  if (errors.some((error) => error.field === 'id')) assertValidInput(errors);
  const outbox = ticketTypeOutbox(organizationId, 'ticket_type.updated');
  const quantityRule = (sold: number) => (errors.some((error) => error.field === 'quantity') ? [] : quantityErrors(input.quantity, sold));
  return inUnitOfWork(
    scope,
    async (tx) => {
      const decideAndApply = async (locked: EntityManager): Promise<TicketTypeEntity> => {
        if (errors.length > 0) {
          // Refused anyway: the stored type only says whether it exists and what else to report.
          assertValidInput(errors, quantityRule((await storedTicketType(locked, organizationId, id)).sold));
        }
        for (let attempt = 1; ; attempt += 1) {
          const updated = await updateTicketTypeFields(locked, organizationId, id, input, outbox);
          if (updated) return updated;
          const stored = await storedTicketType(locked, organizationId, id);
          if (stored.slots > 0) {
            // A slotted ticket type (src/modules/inventory/): its sales are in its slots, which bookings
            // claim without the ticket type's row lock; under the locks of every one of them, the rule,
            // the change and the room left split again, in one transaction.
            const slotted = await withinTransaction(locked, async (slotsLocked) => {
              if (!(await lockEventOfTicketType(slotsLocked, organizationId, id))) throw AppError.ticketTypeNotFound(id);
              const pool = await lockTicketTypePool(slotsLocked, id);
              assertValidInput(quantityRule(pool.sold));
              const changed = await updateTicketTypeFields(slotsLocked, organizationId, id, input, outbox, true);
              if (changed) await reshareRoom(slotsLocked, { ticketType: id }, pool.slots, (input.quantity ?? pool.quantity) - pool.sold);
              return changed;
            });
            if (slotted) return slotted;
            if (attempt === MAX_ATTEMPTS) throw new Error(`updateTicketType: ${id} refused ${MAX_ATTEMPTS} times without a reason`);
            continue;
          }
          assertValidInput(quantityRule(stored.sold));
          if (attempt === MAX_ATTEMPTS) throw new Error(`updateTicketType: ${id} refused ${MAX_ATTEMPTS} times without a reason`);
        }
      };
      const apply = async (locked: EntityManager, offersFollow = false): Promise<TicketTypeEntity> => {
        const updated = await decideAndApply(locked);
        // Offers to the waiting list (D21) hold tickets after the change, in its transaction: the
        // answer reads `held` after the commit (its ticket_type.updated message shows the change's).
        if (offersFollow) updated.held = undefined;
        return updated;
      };
      // A raised quantity may free tickets for people waiting (D21): with any waiting, the change and
      // their offers commit together.
      return input.quantity != null && errors.length === 0 ? offeringFreedSeats(tx, organizationId, { ticketTypeId: id }, apply) : apply(tx);
    },
    { singleStatement: true },
  );
}
