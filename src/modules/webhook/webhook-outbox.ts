import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../foundation/ids';
import type { BookingEntity } from '../booking/booking.entity';
import type { EventEntity } from '../event/event.entity';
import { EventStatus } from '../event/event-status';
import { WEBHOOK_CHANNEL, type WebhookEventType } from './webhook-types';

export type WebhookData = Record<string, unknown>;

/**
 * The transactional outbox (D18). Called inside the transaction of the change, with its EntityManager:
 * writes the message and one delivery per enabled endpoint of the organization that wants the type,
 * and notifies the workers, all of which happens only if that transaction commits. Costs one
 * statement when no endpoint wants the message. `data` may be a function, called only when one does.
 */
export async function enqueueWebhook(
  em: EntityManager,
  organizationId: string,
  type: WebhookEventType,
  data: WebhookData | (() => Promise<WebhookData>),
): Promise<void> {
  const wanted = await em.execute<Array<{ id: string }>>(
    `select id from webhook_endpoints where organization_id = ? and enabled and (cardinality(event_types) = 0 or ? = any(event_types))`,
    [organizationId, type],
  );
  if (wanted.length === 0) return;
  const payload = typeof data === 'function' ? await data() : data;
  await insertMessage(em, organizationId, type, payload, wanted.map((row) => row.id));
}

/** Writes one message for the given endpoints and wakes the workers (on commit). Returns its id. */
export async function insertMessage(
  em: EntityManager,
  organizationId: string,
  type: string,
  data: WebhookData,
  endpointIds: readonly string[],
): Promise<string> {
  const id = newId('msg');
  const createdAt = new Date();
  const body = JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
  await em.execute(`insert into webhook_messages (id, organization_id, type, body, created_at) values (?, ?, ?, ?, ?)`, [
    id,
    organizationId,
    type,
    body,
    createdAt,
  ]);
  await em.execute(
    `insert into webhook_deliveries (message_id, endpoint_id, next_attempt_at, created_at)
     select ?, id, now(), now() from webhook_endpoints where id = any(?::text[])`,
    [id, `{${endpointIds.join(',')}}`],
  );
  await em.execute(`select pg_notify('${WEBHOOK_CHANNEL}', '')`);
  return id;
}

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
