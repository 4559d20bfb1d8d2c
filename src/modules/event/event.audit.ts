import { auditCtes, type AuditSummary } from '../../platform/audit/audit-log';
import type { UnitOfWork } from '../../platform/db/unit-of-work-scope';
import type { WebhookEventType } from '../webhook/webhook-types';
import type { OutboxOf } from './event-change-statements';

/*
 * The audit entries of event changes (D26: published, cancelled, deleted), written by the change's own
 * statement as one more CTE beside its webhook message (no statement, no round trip more),
 * gated on the same row: the entry exists exactly when the change does.
 */

/** The actions of D26 among an update's webhook types: a publication or a cancellation. */
const AUDITED_UPDATES: Partial<Record<WebhookEventType, 'event.published' | 'event.cancelled'>> = {
  'event.published': 'event.published',
  'event.cancelled': 'event.cancelled',
};

/** `outbox` and, for event.published / event.cancelled, the audit entry, as the CTEs of one statement. */
export function withUpdateAudit(outbox: OutboxOf, unit: UnitOfWork, organizationId: string, type: WebhookEventType, summary: AuditSummary): OutboxOf {
  const action = AUDITED_UPDATES[type];
  return action ? withAudit(outbox, unit, organizationId, action, summary) : outbox;
}

/** `outbox` and the event.deleted entry (its target the deleted row's id). */
export function withDeleteAudit(outbox: OutboxOf, unit: UnitOfWork, organizationId: string, slug: string): OutboxOf {
  return withAudit(outbox, unit, organizationId, 'event.deleted', { slug });
}

function withAudit(outbox: OutboxOf, unit: UnitOfWork, organizationId: string, action: 'event.published' | 'event.cancelled' | 'event.deleted', summary: AuditSummary): OutboxOf {
  return (gate) => {
    const messages = outbox(gate);
    const audit = auditCtes(unit, { organizationId, action, summary }, gate);
    return { sql: `${messages.sql},\n     ${audit.sql}`, bindings: [...messages.bindings, ...audit.bindings] };
  };
}
