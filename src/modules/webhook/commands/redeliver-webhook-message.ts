import { AppError } from '../../../foundation/errors/app-error';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import type { WebhookRuntime } from '../../../platform/outbox/webhook-runtime';
import { findEndpoint, findMessage, requeueMessage } from '../webhook.repository';
import type { WebhookMessage } from '../webhook.types';

/**
 * Mutation.redeliverWebhookMessage (D18): the endpoint found in the organization (else
 * WEBHOOK_ENDPOINT_NOT_FOUND), then its message put back in the queue, due now, with the same
 * webhook-id and a fresh retry schedule (one being attempted right now is left to that attempt; see
 * `requeueMessage`); a message the endpoint never had is WEBHOOK_MESSAGE_NOT_FOUND. Answers the
 * message as the requeue left it: both in one unit of work, so a worker that delivers it at once (a
 * receiver that answers fast) cannot make the answer say SUCCEEDED before the caller saw PENDING. The
 * message is the unit's result as a value (it is no entity): a retry recovered after a crash answers
 * that same PENDING message, and does not requeue it again.
 */
export async function redeliverWebhookMessage(
  scope: UnitOfWorkScope,
  organizationId: string,
  endpointId: string,
  messageId: string,
  runtime: WebhookRuntime,
): Promise<WebhookMessage> {
  const { message, requeued } = await inUnitOfWork(scope, async (tx) => {
    const endpoint = await findEndpoint(tx, organizationId, endpointId);
    const changed = await requeueMessage(tx, organizationId, endpoint.id, messageId);
    const found = await findMessage(tx, organizationId, endpoint.id, messageId);
    if (!found) throw AppError.webhookMessageNotFound(messageId);
    return { message: found, requeued: changed };
  });
  if (requeued) runtime.wake();
  return message;
}
