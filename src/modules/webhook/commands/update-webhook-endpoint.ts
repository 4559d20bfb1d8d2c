import type { EntityManager } from '@mikro-orm/postgresql';
import { registrationError } from '../../../platform/outbox/webhook-destination';
import type { WebhookEndpointEntity } from '../webhook-endpoint.entity';
import type { WebhookRuntime } from '../../../platform/outbox/webhook-runtime';
import { endpointChanges, endpointInputErrors, type EndpointInput } from '../webhook.policy';
import { findEndpoint } from '../webhook.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';

/**
 * Mutation.updateWebhookEndpoint (D18): the endpoint found in the caller's organization first (an
 * unknown or foreign id is WEBHOOK_ENDPOINT_NOT_FOUND whatever the input), then every failing field
 * at once (destination rule and the policy's field rules), then only the given fields applied;
 * re-enabling clears the failure state (policy). An enabled endpoint wakes the worker: messages that
 * waited while it was disabled go out now. No row lock: the destination check may wait on DNS.
 */
export async function updateWebhookEndpoint(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
  input: EndpointInput,
  runtime: WebhookRuntime,
): Promise<WebhookEndpointEntity> {
  const endpoint = await findEndpoint(em, organizationId, endpointId);
  const destination = input.url == null ? undefined : await registrationError(input.url, runtime.allowPrivateNetworks, runtime.resolve);
  assertValidInput(endpointInputErrors(input, 'update', destination));

  Object.assign(endpoint, endpointChanges(endpoint, input));
  await em.flush();
  if (endpoint.enabled) runtime.wake();
  return endpoint;
}
