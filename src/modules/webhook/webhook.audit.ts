import type { AuditSummary, AuditValue } from '../../platform/audit/audit-log';
import type { WebhookEndpointEntity } from './webhook-endpoint.entity';

/*
 * What an audit entry says of a webhook endpoint (D26): its URL, event types, description and whether
 * it is enabled; never its signing secrets (stored sealed, shown once).
 */

export function endpointSummary(endpoint: WebhookEndpointEntity): AuditSummary {
  return {
    url: endpoint.url,
    eventTypes: [...endpoint.eventTypes],
    description: endpoint.description ?? null,
    enabled: endpoint.enabled,
  };
}

/** `{ field: { from, to } }` of the fields that differ, or undefined when none does. */
export function changedFields(before: AuditSummary, after: AuditSummary): AuditSummary | undefined {
  const summary: AuditSummary = {};
  for (const field of Object.keys(after)) {
    const [from, to]: AuditValue[] = [before[field] ?? null, after[field] ?? null];
    if (JSON.stringify(from) !== JSON.stringify(to)) summary[field] = { from, to };
  }
  return Object.keys(summary).length > 0 ? summary : undefined;
}
