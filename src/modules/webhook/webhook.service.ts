import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldError } from '../../errors/app-error';
import { idErrors, paginationErrors } from '../../validation/arguments';
import { OrganizationEntity } from '../organization/organization.entity';
import { registrationError } from './webhook-destination';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { insertMessage } from './webhook-outbox';
import type { WebhookRuntime } from './webhook-runtime';
import { newSigningSecret } from './webhook-secret';
import { isWebhookEventType, TEST_MESSAGE_TYPE, WEBHOOK_CHANNEL, WEBHOOK_EVENT_TYPES } from './webhook-types';
import {
  WebhookMessageStatus,
  type CreateWebhookEndpointInput,
  type UpdateWebhookEndpointInput,
  type WebhookAttempt,
  type WebhookMessage,
  type WebhookMessageList,
} from './webhook.types';

/** How long a rotated-out secret keeps signing beside the new one (D18). */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;


/** Endpoints and their messages, always within the caller's organization (D1, D18). */
export class WebhookService {
  constructor(
    private readonly em: EntityManager,
    private readonly runtime: WebhookRuntime,
  ) {}

  list(organizationId: string): Promise<WebhookEndpointEntity[]> {
    return this.em.find(WebhookEndpointEntity, { organization: organizationId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  async get(organizationId: string, id: string): Promise<WebhookEndpointEntity> {
    if (idErrors('id', id, 'whe').length > 0) throw AppError.webhookEndpointNotFound(id);
    const endpoint = await this.em.findOne(WebhookEndpointEntity, { id, organization: organizationId });
    if (!endpoint) throw AppError.webhookEndpointNotFound(id);
    return endpoint;
  }

  async create(organizationId: string, input: CreateWebhookEndpointInput): Promise<{ endpoint: WebhookEndpointEntity; secret: string }> {
    const errors = await this.inputErrors(input);
    if (input.url == null) errors.push({ field: 'url', message: 'url is required' });
    if (errors.length > 0) throw AppError.validation(errors);
    const secret = newSigningSecret();
    const endpoint = this.em.create(WebhookEndpointEntity, {
      organization: this.em.getReference(OrganizationEntity, organizationId),
      url: input.url,
      description: input.description ?? null,
      eventTypes: uniqueTypes(input.eventTypes),
      enabled: input.enabled ?? true,
      secretCiphertext: this.runtime.secrets.seal(secret),
    });
    await this.em.flush();
    return { endpoint, secret };
  }

  async update(organizationId: string, id: string, input: UpdateWebhookEndpointInput): Promise<WebhookEndpointEntity> {
    const endpoint = await this.get(organizationId, id);
    const errors = await this.inputErrors(input);
    if (input.url === null) errors.push({ field: 'url', message: 'url cannot be null' });
    if (errors.length > 0) throw AppError.validation(errors);
    if (input.url != null) endpoint.url = input.url;
    if (input.description !== undefined) endpoint.description = input.description;
    if (input.eventTypes != null) endpoint.eventTypes = uniqueTypes(input.eventTypes);
    if (input.enabled != null) {
      if (input.enabled && !endpoint.enabled) {
        endpoint.failingSince = null;
        endpoint.disabledReason = null;
      }
      endpoint.enabled = input.enabled;
    }
    await this.em.flush();
    if (endpoint.enabled) this.runtime.wake();
    return endpoint;
  }

  async delete(organizationId: string, id: string): Promise<{ id: string }> {
    const endpoint = await this.get(organizationId, id);
    // Its deliveries and attempts go with it (ON DELETE CASCADE).
    await this.em.remove(endpoint).flush();
    return { id };
  }

  /** A new secret; the previous one keeps signing beside it for 24 hours (two signatures). */
  async rotateSecret(organizationId: string, id: string): Promise<{ endpoint: WebhookEndpointEntity; secret: string }> {
    const endpoint = await this.get(organizationId, id);
    const secret = newSigningSecret();
    endpoint.previousSecretCiphertext = endpoint.secretCiphertext;
    endpoint.previousSecretExpiresAt = new Date(Date.now() + ROTATION_OVERLAP_MS);
    endpoint.secretCiphertext = this.runtime.secrets.seal(secret);
    await this.em.flush();
    return { endpoint, secret };
  }

  async messages(
    organizationId: string,
    endpointId: string,
    query: { page: number; limit: number; status?: WebhookMessageStatus | null },
  ): Promise<WebhookMessageList> {
    const errors = paginationErrors(query.page, query.limit);
    if (errors.length > 0) throw AppError.validation(errors);
    const endpoint = await this.get(organizationId, endpointId);
    const status = query.status ?? null;
    const rows = await this.em.execute<DeliveryRow[]>(
      `${DELIVERY_SELECT} where d.endpoint_id = ? and (?::text is null or d.status = ?)
       order by d.created_at desc, d.id desc limit ? offset ?`,
      [endpoint.id, status, status, query.limit, (query.page - 1) * query.limit],
    );
    const [{ count }] = await this.em.execute<Array<{ count: string }>>(
      `select count(*) from webhook_deliveries d where d.endpoint_id = ? and (?::text is null or d.status = ?)`,
      [endpoint.id, status, status],
    );
    return { messages: await this.withAttempts(rows), total: Number(count), page: query.page, limit: query.limit };
  }

  /** Sends the message again now, with the same webhook-id and a fresh retry schedule. */
  async redeliver(organizationId: string, endpointId: string, messageId: string): Promise<WebhookMessage> {
    const endpoint = await this.get(organizationId, endpointId);
    const updated = await this.em.execute<Array<{ id: string }>>(
      `update webhook_deliveries set status = 'PENDING', retry_index = 0, next_attempt_at = now()
       where endpoint_id = ? and message_id = ? and (status <> 'PENDING' or locked_until is null) returning id`,
      [endpoint.id, messageId],
    );
    if (updated.length === 0 && !(await this.delivery(endpoint.id, messageId))) throw AppError.webhookMessageNotFound(messageId);
    await this.em.execute(`select pg_notify('${WEBHOOK_CHANNEL}', '')`);
    this.runtime.wake();
    return (await this.delivery(endpoint.id, messageId)) as WebhookMessage;
  }

  /** A `webhook.test` message to this endpoint only, whatever its filter (also while disabled: it waits). */
  async sendTest(organizationId: string, endpointId: string): Promise<WebhookMessage> {
    const endpoint = await this.get(organizationId, endpointId);
    const id = await this.em.transactional((em) =>
      insertMessage(em, organizationId, TEST_MESSAGE_TYPE, { endpointId: endpoint.id, message: 'This is a test message.' }, [endpoint.id]),
    );
    this.runtime.wake();
    return (await this.delivery(endpoint.id, id)) as WebhookMessage;
  }

  private async delivery(endpointId: string, messageId: string): Promise<WebhookMessage | undefined> {
    const rows = await this.em.execute<DeliveryRow[]>(`${DELIVERY_SELECT} where d.endpoint_id = ? and d.message_id = ?`, [endpointId, messageId]);
    return (await this.withAttempts(rows))[0];
  }

  private async withAttempts(rows: DeliveryRow[]): Promise<WebhookMessage[]> {
    if (rows.length === 0) return [];
    const attempts = await this.em.execute<AttemptRow[]>(
      `select delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_body
       from webhook_attempts where delivery_id = any(?::bigint[]) order by attempt_number`,
      [`{${rows.map((row) => row.delivery_id).join(',')}}`],
    );
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

  private async inputErrors(input: UpdateWebhookEndpointInput): Promise<FieldError[]> {
    const errors: FieldError[] = [];
    if (input.url != null) {
      const error = await registrationError(input.url, this.runtime.allowPrivateNetworks, this.runtime.resolve);
      if (error) errors.push({ field: 'url', message: error });
    }
    if (input.description != null && input.description.length > 500) {
      errors.push({ field: 'description', message: 'description must be at most 500 characters' });
    }
    const unknown = (input.eventTypes ?? []).filter((type) => !isWebhookEventType(type));
    if (unknown.length > 0) {
      errors.push({ field: 'eventTypes', message: `unknown type(s) ${unknown.join(', ')}; use ${WEBHOOK_EVENT_TYPES.join(', ')}` });
    }
    return errors;
  }
}

const DELIVERY_SELECT = `select d.id as delivery_id, m.id, m.type, m.body, d.status, m.created_at, d.next_attempt_at
  from webhook_deliveries d join webhook_messages m on m.id = d.message_id`;

interface DeliveryRow {
  delivery_id: string;
  id: string;
  type: string;
  body: string;
  status: WebhookMessageStatus;
  created_at: Date | string;
  next_attempt_at: Date | string;
}

interface AttemptRow {
  delivery_id: string;
  attempt_number: number;
  attempted_at: Date | string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

function attemptView(row: AttemptRow): WebhookAttempt {
  return {
    attemptNumber: row.attempt_number,
    attemptedAt: new Date(row.attempted_at),
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    error: row.error,
    responseBody: row.response_body,
  };
}

function uniqueTypes(types: readonly string[] | null | undefined): string[] {
  return [...new Set(types ?? [])];
}

/** What the admin CLI prints for an endpoint (never a secret). */
export function webhookEndpointView(endpoint: WebhookEndpointEntity) {
  return {
    id: endpoint.id,
    organizationId: endpoint.organization.id,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt.toISOString(),
  };
}
