import { registrationError } from '../../../platform/outbox/webhook-destination';
import type { WebhookEndpointEntity } from '../webhook-endpoint.entity';
import type { WebhookRuntime } from '../../../platform/outbox/webhook-runtime';
import { endpointChanges, endpointInputErrors, type EndpointInput } from '../webhook.policy';
import { findEndpoint } from '../webhook.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';
import { changedFields, endpointSummary } from '../webhook.audit';

/**
 * Mutation.updateWebhookEndpoint (D18): the endpoint found in the caller's organization first (an
 * unknown or foreign id is WEBHOOK_ENDPOINT_NOT_FOUND whatever the input), then every failing field
 * at once (destination rule and the policy's field rules), then only the given fields applied in the
 * unit of work; re-enabling clears the failure state (policy). An enabled endpoint wakes the worker:
 * messages that waited while it was disabled go out now. The destination check (it may wait on DNS)
 * runs before the unit's transaction opens, so the transaction never waits on it.
 */
export async function updateWebhookEndpoint(
  scope: UnitOfWorkScope,
  organizationId: string,
  endpointId: string,
  input: EndpointInput,
  runtime: WebhookRuntime,
): Promise<WebhookEndpointEntity> {
  const { em } = scope;
  await findEndpoint(em, organizationId, endpointId);
  const destination = input.url == null ? undefined : await registrationError(input.url, runtime.allowPrivateNetworks, runtime.resolve);
  assertValidInput(endpointInputErrors(input, 'update', destination));

  const endpoint = await inUnitOfWork(scope, async (tx, unit) => {
    const current = await findEndpoint(tx, organizationId, endpointId);
    const before = endpointSummary(current);
    Object.assign(current, endpointChanges(current, input));
    const summary = changedFields(before, endpointSummary(current));
    if (summary) await recordAudit(tx, unit, { organizationId, action: 'webhook_endpoint.updated', targetId: current.id, summary });
    return current;
  });
  if (endpoint.enabled) runtime.wake();
  return endpoint;
}
