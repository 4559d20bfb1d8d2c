import { AppError } from '../../../foundation/errors/app-error';
import { insertMessage } from '../../../platform/outbox/outbox';
import type { WebhookRuntime } from '../../../platform/outbox/webhook-runtime';
import { TEST_MESSAGE_TYPE } from '../webhook-types';
import { findEndpoint, findMessage } from '../webhook.repository';
import type { WebhookMessage } from '../webhook.types';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';

/**
 * Mutation.sendTestWebhook (D18): the endpoint found in the organization (else
 * WEBHOOK_ENDPOINT_NOT_FOUND), then a `webhook.test` message written through the outbox to this
 * endpoint only, whatever its type filter (a disabled endpoint keeps it until re-enabled). Answers
 * the message, PENDING.
 */
export async function sendTestWebhook(scope: UnitOfWorkScope, organizationId: string, endpointId: string, runtime: WebhookRuntime): Promise<WebhookMessage> {
  const { em } = scope;
  const endpoint = await findEndpoint(em, organizationId, endpointId);
  const data = { endpointId: endpoint.id, message: 'This is a test message.' };
  const messageId = await inUnitOfWork(scope, (tx) => insertMessage(tx, organizationId, TEST_MESSAGE_TYPE, data, [endpoint.id]));
  runtime.wake();
  const message = await findMessage(em, organizationId, endpoint.id, messageId);
  // Only an endpoint deleted in between leaves no message to show.
  if (!message) throw AppError.webhookEndpointNotFound(endpointId);
  return message;
}
