import type { EntityManager } from '@mikro-orm/postgresql';
import { paginationErrors } from '../../foundation/validation/arguments';
import { findEndpoint, pageOfMessages } from './webhook.repository';
import type { WebhookMessageList, WebhookMessageStatus } from './webhook.types';
import { assertValidInput } from '../../foundation/validation/validate-input';

/**
 * Query.webhookMessages (D18): `page` and `limit` checked (400 listing both), the endpoint found in the
 * caller's organization (else WEBHOOK_ENDPOINT_NOT_FOUND), then one page of its messages, newest
 * first, each with every attempt.
 */
export async function listWebhookMessages(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
  query: { page: number; limit: number; status?: WebhookMessageStatus | null },
): Promise<WebhookMessageList> {
  assertValidInput(paginationErrors(query.page, query.limit));
  const endpoint = await findEndpoint(em, organizationId, endpointId);
  const { messages, total } = await pageOfMessages(em, organizationId, endpoint.id, { page: query.page, limit: query.limit, status: query.status ?? null });
  return { messages, total, page: query.page, limit: query.limit };
}
