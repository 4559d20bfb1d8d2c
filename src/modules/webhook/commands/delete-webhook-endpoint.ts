import { findEndpoint, removeEndpoint } from '../webhook.repository';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';
import { endpointSummary } from '../webhook.audit';

/**
 * Mutation.deleteWebhookEndpoint and `webhook delete` (D18): the endpoint found in the organization
 * (else WEBHOOK_ENDPOINT_NOT_FOUND), then deleted with its deliveries and attempts: nothing more is
 * sent to it, an attempt under way finishes without being recorded.
 */
export async function deleteWebhookEndpoint(scope: UnitOfWorkScope, organizationId: string, endpointId: string): Promise<{ id: string }> {
  return inUnitOfWork(scope, async (tx, unit) => {
    const endpoint = await findEndpoint(tx, organizationId, endpointId);
    await recordAudit(tx, unit, { organizationId, action: 'webhook_endpoint.deleted', targetId: endpoint.id, summary: endpointSummary(endpoint) });
    await removeEndpoint(tx, endpoint);
    return { id: endpointId };
  });
}
