import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import { countConfirmed } from '../../booking/booking.repository';
import { EventEntity } from '../event.entity';
import { assertDeletable } from '../event.policy';
import { deleteEventWithoutBookings, idBySlugOrNull } from '../event.repository';
import { eventDeletedOutbox } from '../event.webhooks';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

const MAX_ATTEMPTS = 5;

/**
 * Mutation.deleteEvent and DELETE /v1/events/{slug} (D3): only without confirmed bookings (409
 * otherwise). One statement deletes it with its event.deleted message (issue 19); when it deletes
 * nothing, the reason is worked out afterwards (not found, or the policy on its bookings).
 */
export async function deleteEvent(em: EntityManager, organizationId: string, slug: string): Promise<{ id: string; slug: string }> {
  return inUnitOfWork(
    em,
    async (tx) => {
      for (let attempt = 1; ; attempt += 1) {
        const id = await deleteEventWithoutBookings(tx, organizationId, slug, eventDeletedOutbox(organizationId, slug));
        if (id) return { id, slug };
        const existing = await idBySlugOrNull(tx, organizationId, slug);
        if (!existing) throw AppError.eventNotFound(slug);
        assertDeletable(await countConfirmed(tx, tx.getReference(EventEntity, existing)));
        // Its bookings were cancelled since: delete again (registrations without confirmed bookings would be a broken counter).
        if (attempt === MAX_ATTEMPTS) throw new Error(`deleteEvent: event ${existing} has registrations but no confirmed booking`);
      }
    },
    { singleStatement: true },
  );
}
