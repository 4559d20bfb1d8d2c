import type { EntityManager } from '@mikro-orm/postgresql';
import { countConfirmed } from '../../booking/booking.repository';
import { assertDeletable } from '../event.policy';
import { presentDeletedEvent } from '../event.presenter';
import { deleteEvent as deleteEventRow, lockBySlug } from '../event.repository';
import { enqueueWebhook } from '../../../platform/outbox/outbox';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/** Mutation.deleteEvent and DELETE /v1/events/{slug} (D3): only without confirmed bookings (409 otherwise). */
export async function deleteEvent(em: EntityManager, organizationId: string, slug: string): Promise<{ id: string; slug: string }> {
  return inUnitOfWork(em, async (tx) => {
    const event = await lockBySlug(tx, organizationId, slug);
    assertDeletable(await countConfirmed(tx, event));
    await deleteEventRow(tx, event);
    const deleted = presentDeletedEvent(event);
    await enqueueWebhook(tx, organizationId, 'event.deleted', deleted);
    return deleted;
  });
}
