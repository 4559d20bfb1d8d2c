import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { idErrors } from '../../foundation/validation/arguments';
import type { ListPosition } from '../../platform/db/list-position';
import { executeOnOrm } from '../../platform/db/prepared-statements';
import { sqlStatements } from '../../platform/db/sql-statement';
import type { BatchResult } from '../../platform/retention/retention-job';
import { OrganizationEntity } from '../organization/organization.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookMessageStatus, type WebhookAttempt, type WebhookMessage } from './webhook.types';

const sql = sqlStatements(__filename);

/*
 * The only place of the webhook module that reaches webhook_endpoints through the ORM and reads the
 * messages and attempts views (D18), for management: the endpoint commands, Query.webhookEndpoints /
 * webhookMessages and the admin CLI. The organization is always the first argument after the entity
 * manager: another organization's endpoint or message answers as a missing one. Also the deletion of
 * messages past their retention (webhook.retention.ts). Writing messages (the outbox,
 * src/platform/outbox/outbox.ts) and delivering them (webhook-delivery.repository.ts) have SQL of their own.
 */

/** The endpoint, or WEBHOOK_ENDPOINT_NOT_FOUND (also for an id that cannot be an endpoint's). */
export async function findEndpoint(em: EntityManager, organizationId: string, endpointId: string): Promise<WebhookEndpointEntity> {
  if (idErrors('id', endpointId, 'whe').length > 0) throw AppError.webhookEndpointNotFound(endpointId);
  const endpoint = await em.findOne(WebhookEndpointEntity, { id: endpointId, organization: organizationId });
  if (!endpoint) throw AppError.webhookEndpointNotFound(endpointId);
  return endpoint;
}

/** The endpoint locked for the rest of the transaction (SELECT … FOR UPDATE), or WEBHOOK_ENDPOINT_NOT_FOUND. */
export async function lockEndpoint(em: EntityManager, organizationId: string, endpointId: string): Promise<WebhookEndpointEntity> {
  if (idErrors('id', endpointId, 'whe').length > 0) throw AppError.webhookEndpointNotFound(endpointId);
  const endpoint = await em.findOne(WebhookEndpointEntity, { id: endpointId, organization: organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!endpoint) throw AppError.webhookEndpointNotFound(endpointId);
  return endpoint;
}

/** The operator names an endpoint of any organization (admin CLI): the organization it belongs to, or NOT_FOUND. */
export async function organizationOfEndpoint(em: EntityManager, endpointId: string): Promise<string> {
  if (idErrors('id', endpointId, 'whe').length > 0) throw AppError.webhookEndpointNotFound(endpointId);
  const endpoint = await em.findOne(WebhookEndpointEntity, { id: endpointId });
  if (!endpoint) throw AppError.webhookEndpointNotFound(endpointId);
  return endpoint.organization.id;
}

/** The organization's endpoints, oldest first. */
export function endpointsOfOrganization(em: EntityManager, organizationId: string): Promise<WebhookEndpointEntity[]> {
  return em.find(WebhookEndpointEntity, { organization: organizationId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export interface NewEndpoint {
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
  /** The signing secret sealed with the server key (webhook-secret.ts): never the secret itself. */
  secretCiphertext: string;
}

/** Adds an endpoint to the unit of work. */
export function addEndpoint(em: EntityManager, organizationId: string, fields: NewEndpoint): WebhookEndpointEntity {
  return em.create(WebhookEndpointEntity, { organization: em.getReference(OrganizationEntity, organizationId), ...fields });
}

/** Deletes the endpoint; its deliveries and attempts go with it (ON DELETE CASCADE), its messages stay for other endpoints. */
export async function removeEndpoint(em: EntityManager, endpoint: WebhookEndpointEntity): Promise<void> {
  await em.remove(endpoint).flush();
}

/**
 * One page of an endpoint's messages, newest first, each with every attempt, how many there are in
 * all, and the position of the page's last delivery when another page follows. A cursor page (D25)
 * starts after `after` (the delivery's creation in microseconds since the epoch, and its id).
 */
export async function pageOfMessages(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
  query: { page: number; limit: number; status: WebhookMessageStatus | null; after: ListPosition | null },
): Promise<{ messages: WebhookMessage[]; total: number; next: ListPosition | null }> {
  const { status, after } = query;
  const rows = await executeOnOrm(em, MESSAGE_PAGE, {
    endpointId,
    organizationId,
    status,
    sortKey: after?.[0] ?? null,
    afterId: after?.[1] ?? null,
    limit: query.limit + 1,
    offset: after ? 0 : (query.page - 1) * query.limit,
  });
  const [{ count }] = await executeOnOrm(em, MESSAGE_COUNT, { endpointId, organizationId, status });
  const onPage = rows.slice(0, query.limit);
  const last = onPage[onPage.length - 1];
  const next: ListPosition | null = rows.length > query.limit ? [last.sort_key, String(last.delivery_id)] : null;
  return { messages: await withAttempts(em, onPage), total: Number(count), next };
}

/** One message to the endpoint with every attempt, or undefined. */
export async function findMessage(em: EntityManager, organizationId: string, endpointId: string, messageId: string): Promise<WebhookMessage | undefined> {
  const rows = await executeOnOrm(em, FIND_MESSAGE, { endpointId, messageId, organizationId });
  return (await withAttempts(em, rows))[0];
}

/**
 * Puts the message to the endpoint back in the queue, due now, with a fresh retry schedule (same
 * webhook-id); the caller wakes the workers after its commit. A message being attempted right now (PENDING under a worker's
 * lease) is left to that attempt. Returns whether the message was put back (false also when there is none).
 */
export async function requeueMessage(em: EntityManager, organizationId: string, endpointId: string, messageId: string): Promise<boolean> {
  const updated = await executeOnOrm(em, REQUEUE_MESSAGE, { organizationId, endpointId, messageId });
  return updated.length > 0;
}

const DELIVERY_SELECT = `select d.id as delivery_id, m.id, m.type, m.body, d.status, m.created_at, d.next_attempt_at
  from webhook_deliveries d join webhook_messages m on m.id = d.message_id`;
/** DELIVERY_SELECT with the delivery's sort key (its creation in microseconds since the epoch), for list positions. */
const DELIVERY_SELECT_KEYED = DELIVERY_SELECT.replace(
  ' from ',
  `, (extract(epoch from d.created_at) * 1000000)::bigint::text as sort_key from `,
);

interface DeliveryRow {
  delivery_id: string;
  id: string;
  type: string;
  body: string;
  status: WebhookMessageStatus;
  created_at: Date | string;
  next_attempt_at: Date | string;
}

type MessageFilter = { endpointId: string; organizationId: string; status: WebhookMessageStatus | null };

const MESSAGE_PAGE = sql.statement<
  MessageFilter & { sortKey: string | null; afterId: string | null; limit: number; offset: number },
  DeliveryRow & { sort_key: string }
>(
  'messagePage',
  `${DELIVERY_SELECT_KEYED} where d.endpoint_id = :endpointId and m.organization_id = :organizationId and (:status::text is null or d.status = :status)
       and (:sortKey::bigint is null or (d.created_at, d.id) < ('epoch'::timestamptz + :sortKey::bigint * interval '1 microsecond', :afterId::bigint))
     order by d.created_at desc, d.id desc limit :limit offset :offset`,
);
const MESSAGE_COUNT = sql.statement<MessageFilter, { count: string }>(
  'messageCount',
  `select count(*) from webhook_deliveries d join webhook_messages m on m.id = d.message_id
     where d.endpoint_id = :endpointId and m.organization_id = :organizationId and (:status::text is null or d.status = :status)`,
);
const FIND_MESSAGE = sql.statement<{ endpointId: string; messageId: string; organizationId: string }, DeliveryRow>(
  'findMessage',
  `${DELIVERY_SELECT} where d.endpoint_id = :endpointId and d.message_id = :messageId and m.organization_id = :organizationId`,
);
const REQUEUE_MESSAGE = sql.statement<{ organizationId: string; endpointId: string; messageId: string }, { id: string }>(
  'requeueMessage',
  `update webhook_deliveries d set status = 'PENDING', retry_index = 0, next_attempt_at = now()
     from webhook_messages m
     where m.id = d.message_id and m.organization_id = :organizationId and d.endpoint_id = :endpointId and d.message_id = :messageId
       and (d.status <> 'PENDING' or d.locked_until is null)
     returning d.id`,
);

interface AttemptRow {
  delivery_id: string;
  attempt_number: number;
  attempted_at: Date | string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  trace_id: string | null;
}

/** The attempts of the deliveries `deliveryIds` (a PostgreSQL array literal of their ids). */
const ATTEMPTS_OF = sql.statement<{ deliveryIds: string }, AttemptRow>(
  'attemptsOf',
  `select delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_body, trace_id
     from webhook_attempts where delivery_id = any(:deliveryIds::bigint[]) order by attempt_number`,
);

async function withAttempts(em: EntityManager, rows: DeliveryRow[]): Promise<WebhookMessage[]> {
  if (rows.length === 0) return [];
  const attempts = await executeOnOrm(em, ATTEMPTS_OF, { deliveryIds: `{${rows.map((row) => row.delivery_id).join(',')}}` });
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    payload: JSON.parse(row.body) as Record<string, unknown>,
    status: row.status,
    createdAt: new Date(row.created_at),
    nextAttemptAt: row.status === WebhookMessageStatus.PENDING ? new Date(row.next_attempt_at) : null,
    attempts: attempts.filter((attempt) => String(attempt.delivery_id) === String(row.delivery_id)).map(attemptView),
  }));
}

function attemptView(row: AttemptRow): WebhookAttempt {
  return {
    attemptNumber: row.attempt_number,
    attemptedAt: new Date(row.attempted_at),
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    error: row.error,
    responseBody: row.response_body,
    traceId: row.trace_id,
  };
}

const LOCK_MESSAGES_PAST_RETENTION = sql.statement<{ retentionMs: number; limit: number }, { id: string }>(
  'lockMessagesPastRetention',
  `select m.id from webhook_messages m
          where m.created_at < now() - :retentionMs * interval '1 millisecond'
            and not exists (select 1 from webhook_deliveries d where d.message_id = m.id
                             and (d.status = 'PENDING' or d.last_attempt_at >= now() - :retentionMs * interval '1 millisecond'))
          order by m.created_at limit :limit for update of m skip locked`,
);
/** `ids`: a PostgreSQL array literal of the batch's message ids (one binding, however many). */
const DELETE_FINISHED_DELIVERIES = sql.statement<{ ids: string }, { deliveries: number; attempts: number }>(
  'deleteFinishedDeliveries',
  `with gone as (delete from webhook_deliveries where message_id = any(:ids::text[]) and status <> 'PENDING' returning id)
         select count(*)::int as deliveries,
                (select count(*)::int from webhook_attempts a where a.delivery_id in (select id from gone)) as attempts
           from gone`,
);
const DELETE_MESSAGES_WITHOUT_DELIVERIES = sql.statement<{ ids: string }, { deleted: number }>(
  'deleteMessagesWithoutDeliveries',
  `with gone as (
           delete from webhook_messages m where m.id = any(:ids::text[])
              and not exists (select 1 from webhook_deliveries d where d.message_id = m.id)
           returning 1)
         select count(*)::int as deleted from gone`,
);

/**
 * One batch of the retention of webhook messages (webhook.retention.ts): at most `limit` messages, in
 * three statements in the job's transaction. The batch's messages are locked first (SKIP LOCKED);
 * then their finished deliveries are deleted, each checked again as it is deleted (a redelivery that
 * committed meanwhile made it PENDING: it stays); then only the messages left without any delivery
 * are deleted. A redelivery that comes after its delivery was deleted finds nothing to requeue.
 */
export async function deleteMessagesPastRetention(em: EntityManager, retentionMs: number, limit: number): Promise<BatchResult> {
  const batch = await executeOnOrm(em, LOCK_MESSAGES_PAST_RETENTION, { retentionMs, limit });
  if (batch.length === 0) return { deleted: {}, more: false };
  const ids = `{${batch.map((row) => row.id).join(',')}}`;
  const [deliveries] = await executeOnOrm(em, DELETE_FINISHED_DELIVERIES, { ids });
  const [messages] = await executeOnOrm(em, DELETE_MESSAGES_WITHOUT_DELIVERIES, { ids });
  return {
    deleted: { webhook_messages: messages.deleted, webhook_deliveries: deliveries.deliveries, webhook_attempts: deliveries.attempts },
    more: batch.length >= limit,
  };
}
