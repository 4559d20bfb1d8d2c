import { findOrganization } from '../../organization/organization.repository';
import { registrationError } from '../../../platform/outbox/webhook-destination';
import type { WebhookEndpointEntity } from '../webhook-endpoint.entity';
import type { WebhookRuntime } from '../../../platform/outbox/webhook-runtime';
import { newSigningSecret } from '../../../platform/crypto/secret-box';
import { endpointInputErrors, newEndpointFields, type EndpointInput } from '../webhook.policy';
import { addEndpoint } from '../webhook.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';
import { endpointSummary } from '../webhook.audit';

/**
 * Mutation.createWebhookEndpoint and `webhook create` (D18): every failing field at once (the
 * destination rule of webhook-destination.ts, which resolves the name, and the policy's field rules),
 * the organization found, then the endpoint with a new signing secret. The returned `secret` is the
 * only time it is shown: only its ciphertext under the server key is stored.
 */
export async function createWebhookEndpoint(
  scope: UnitOfWorkScope,
  organizationId: string,
  input: EndpointInput,
  runtime: WebhookRuntime,
): Promise<{ endpoint: WebhookEndpointEntity; secret: string }> {
  const { em } = scope;
  const destination = input.url == null ? undefined : await registrationError(input.url, runtime.allowPrivateNetworks, runtime.resolve);
  assertValidInput(endpointInputErrors(input, 'create', destination));
  await findOrganization(em, organizationId);

  const url = input.url!; // the policy refuses a missing url
  // The secret is part of the unit's result: a retry after a crash gets the one that committed.
  return inUnitOfWork(scope, async (tx, unit) => {
    const secret = newSigningSecret();
    const endpoint = addEndpoint(tx, organizationId, { ...newEndpointFields({ ...input, url }), secretCiphertext: runtime.secrets.seal(secret) });
    await recordAudit(tx, unit, { organizationId, action: 'webhook_endpoint.created', targetId: endpoint.id, summary: endpointSummary(endpoint) });
    return { endpoint, secret };
  });
}
