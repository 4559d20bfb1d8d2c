import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../foundation/ids';

/** A message's `data`: the JSON object the module that causes the message presents (D18). */
export type WebhookData = object;

/** Workers LISTEN here; the outbox NOTIFYs in the changing transaction, so only a commit wakes them. */
export const WEBHOOK_CHANNEL = 'event_service_webhooks';

/**
 * The transactional outbox (D18). Called by a module's command inside the transaction of its change,
 * with that transaction's EntityManager: writes the message and one delivery per enabled endpoint of
 * the organization that wants the type, and notifies the workers, all of which happens only if that
 * transaction commits. Costs one statement when no endpoint wants the message. `data` may be a
 * function, called (in the same transaction) only when one does. The outbox knows nothing of what a
 * message is about: the type and the data are the caller's.
 */
export async function enqueueWebhook(
  em: EntityManager,
  organizationId: string,
  type: string,
  data: WebhookData | (() => WebhookData | Promise<WebhookData>),
): Promise<void> {
  const wanted = await em.execute<Array<{ id: string }>>(
    `select id from webhook_endpoints where organization_id = ? and enabled and (cardinality(event_types) = 0 or ? = any(event_types))`,
    [organizationId, type],
  );
  if (wanted.length === 0) return;
  const payload: WebhookData = typeof data === 'function' ? await (data as () => WebhookData | Promise<WebhookData>)() : data;
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
