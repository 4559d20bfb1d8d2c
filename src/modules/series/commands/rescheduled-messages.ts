import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedStatements } from '../../../platform/db/prepared-statements';
import { enqueueWebhook } from '../../../platform/outbox/outbox';
import type { EventSeriesRef } from '../../event/event.presenter';
import { findEventBySlug } from '../../event/event.read-repository';
import { restEventBody } from '../series.presenter';

/**
 * event.rescheduled (D28): one message per booked date a series change moved (with moveBooked), its
 * data the event as GET /v1/events/{slug} returns it after the move, read in the change's transaction.
 * Its bookings stay; this is how their holders' systems hear of the new time.
 */
export async function rescheduledMessages(tx: EntityManager, organizationId: string, slugs: readonly string[], series: EventSeriesRef, at: Date): Promise<void> {
  for (const slug of slugs) {
    const event = await findEventBySlug(preparedStatements(tx), organizationId, slug, at);
    if (event) await enqueueWebhook(tx, organizationId, 'event.rescheduled', restEventBody(event, series));
  }
}
