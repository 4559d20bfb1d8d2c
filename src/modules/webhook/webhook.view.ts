import type { WebhookEndpointEntity } from './webhook-endpoint.entity';

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
