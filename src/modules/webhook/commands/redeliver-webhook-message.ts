import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../foundation/errors/app-error';
import type { WebhookRuntime } from '../../../platform/outbox/webhook-runtime';
import { findEndpoint, findMessage, requeueMessage } from '../webhook.repository';
import type { WebhookMessage } from '../webhook.types';

/**
 * Mutation.redeliverWebhookMessage (D18): the endpoint found in the organization (else
 * WEBHOOK_ENDPOINT_NOT_FOUND), then its message put back in the queue, due now, with the same
 * webhook-id and a fresh retry schedule (one being attempted right now is left to that attempt; see
 * `requeueMessage`); a message the endpoint never had is WEBHOOK_MESSAGE_NOT_FOUND. Answers the
 * message as it stands.
 */
export async function redeliverWebhookMessage(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
  messageId: string,
  runtime: WebhookRuntime,
): Promise<WebhookMessage> {
  const endpoint = await findEndpoint(em, organizationId, endpointId);
  const requeued = await requeueMessage(em, organizationId, endpoint.id, messageId);
  const message = await findMessage(em, organizationId, endpoint.id, messageId);
  if (!message) throw AppError.webhookMessageNotFound(messageId);
  if (requeued) runtime.wake();
  return message;
}
