import { AppError } from '../../../foundation/errors/app-error';
import { countConfirmed } from '../../booking/booking.repository';
import { EventEntity } from '../event.entity';
import { assertDeletable } from '../event.policy';
import { deleteEventWithoutBookings } from '../event.repository';
import { idBySlugOrNull } from '../event.read-repository';
import { eventDeletedOutbox } from '../event.webhooks';
import { withDeleteAudit } from '../event.audit';
import { inUnitOfWork, withinTransaction } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { lockEventSlots } from '../../inventory/inventory.repository';

const MAX_ATTEMPTS = 5;

/**
 * Mutation.deleteEvent and DELETE /v1/events/{slug} (D3): only without confirmed bookings (409
 * otherwise). One statement deletes it with its event.deleted message; when it deletes
 * nothing, the reason is worked out afterwards (not found, or the policy on its bookings).
 */
export async function deleteEvent(scope: UnitOfWorkScope, organizationId: string, slug: string): Promise<{ id: string; slug: string }> {
  return inUnitOfWork(
    scope,
    async (tx, unit) => {
      const outbox = withDeleteAudit(eventDeletedOutbox(organizationId, slug), unit, organizationId, slug);
      for (let attempt = 1; ; attempt += 1) {
        const id = await deleteEventWithoutBookings(tx, organizationId, slug, outbox);
        if (id) return { id, slug };
        const existing = await idBySlugOrNull(tx, organizationId, slug);
        if (!existing) throw AppError.eventNotFound(slug);
        if (existing.slots > 0) {
          // A slotted event (src/modules/inventory/): its bookings take no lock on its row, so every slot
          // is locked first (waiting for the bookings in flight), then it is deleted without bookings.
          const deleted = await withinTransaction(tx, async (locked) => {
            await lockEventSlots(locked, existing.id);
            const slotted = await deleteEventWithoutBookings(locked, organizationId, slug, outbox, true);
            if (!slotted) assertDeletable(await countConfirmed(locked, locked.getReference(EventEntity, existing.id)));
            return slotted;
          });
          if (deleted) return { id: deleted, slug };
          if (attempt === MAX_ATTEMPTS) throw new Error(`deleteEvent: event ${existing.id} has registrations but no confirmed booking`);
          continue;
        }
        assertDeletable(await countConfirmed(tx, tx.getReference(EventEntity, existing.id)));
        // Its bookings were cancelled since: delete again (registrations without confirmed bookings would be a broken counter).
        if (attempt === MAX_ATTEMPTS) throw new Error(`deleteEvent: event ${existing.id} has registrations but no confirmed booking`);
      }
    },
    { singleStatement: true },
  );
}
