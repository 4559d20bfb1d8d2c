import type { EntityManager } from '@mikro-orm/postgresql';
import { enqueueWebhook } from '../../platform/outbox/outbox';
import { ofEvent } from '../ticket-type/ticket-type.repository';
import type { WebhookEventType } from '../webhook/webhook-types';
import type { EventEntity } from './event.entity';
import { EventStatus } from './event-status';
import { presentEvent } from './event.presenter';

/**
 * event.created / updated / published / cancelled for an event changed in this transaction (D18), with
 * the event as GET /v1/events/{slug} returns it (presentEvent). Flushes first, so the message shows
 * what commits (updatedAt included). An update that changed nothing sends nothing; a status change to
 * PUBLISHED or CANCELLED sends that type. A new event's ticket types are the ones just created with it;
 * after an update they are read in the same transaction, only when an endpoint wants the message.
 */
export async function enqueueEventChange(em: EntityManager, organizationId: string, event: EventEntity, created = false): Promise<void> {
  const type = created ? 'event.created' : changeTypeOf(em, event);
  await em.flush();
  if (!type) return;
  await enqueueWebhook(em, organizationId, type, async () =>
    presentEvent(event, created ? event.ticketTypes.getItems() : await ofEvent(em, event)),
  );
}

function changeTypeOf(em: EntityManager, event: EventEntity): WebhookEventType | undefined {
  const unitOfWork = em.getUnitOfWork();
  unitOfWork.computeChangeSets();
  const change = unitOfWork.getChangeSets().find((changeSet) => changeSet.entity === event);
  if (!change) return undefined;
  const status = (change.payload as { storedStatus?: EventStatus }).storedStatus;
  if (status === EventStatus.PUBLISHED) return 'event.published';
  if (status === EventStatus.CANCELLED) return 'event.cancelled';
  return 'event.updated';
}
