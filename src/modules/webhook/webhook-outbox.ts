import type { EntityManager } from '@mikro-orm/postgresql';
import { enqueueWebhook, type WebhookData } from '../../platform/outbox/outbox';
import type { BookingEntity } from '../booking/booking.entity';
import type { EventEntity } from '../event/event.entity';
import { EventStatus } from '../event/event-status';
import type { WebhookEventType } from './webhook-types';

/**
 * event.created / updated / published / cancelled for an event changed in this transaction, with the
 * event exactly as GET /v1/events/{slug} returns it. Flushes first, so the message shows what commits.
 * An update that changed nothing sends nothing; a status change to PUBLISHED or CANCELLED sends that type.
 */
export async function enqueueEventWebhook(em: EntityManager, organizationId: string, event: EventEntity, created = false): Promise<void> {
  const type = created ? 'event.created' : changeTypeOf(em, event);
  await em.flush();
  if (type) await enqueueWebhook(em, organizationId, type, () => eventAsRest(em, organizationId, event.slug));
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

/** booking.created / booking.cancelled: the booking as GraphQL shows it, with its eventSlug. */
export function bookingWebhookData(booking: BookingEntity, event: EventEntity): WebhookData {
  return {
    id: booking.id,
    eventId: event.id,
    eventSlug: event.slug,
    ticketTypeId: booking.ticketType?.id ?? null,
    quantity: booking.quantity,
    attendeeEmail: booking.attendeeEmail,
    attendeeName: booking.attendeeName,
    status: booking.status,
    createdAt: booking.createdAt.toISOString(),
    cancelledAt: booking.cancelledAt?.toISOString() ?? null,
  };
}

/** Renders an event exactly as `GET /v1/events/{slug}` returns it, inside the given transaction. */
export type EventPayloadRenderer = (em: EntityManager, organizationId: string, slug: string) => Promise<WebhookData>;

let eventRenderer: EventPayloadRenderer | undefined;

/**
 * Set once at start by the transport layer (src/doors/rest/event-payload.ts runs the REST route's own
 * operation): modules do not depend on the transports, and the payload cannot drift from the GET answer.
 */
export function setEventPayloadRenderer(renderer: EventPayloadRenderer): void {
  eventRenderer = renderer;
}

function eventAsRest(em: EntityManager, organizationId: string, slug: string): Promise<WebhookData> {
  if (!eventRenderer) throw new Error('webhook outbox: no event payload renderer (the service sets it at start)');
  return eventRenderer(em, organizationId, slug);
}
