import { singleTableRule, type RetentionRule } from '../../platform/retention/retention-job';
import { deleteAuditEntriesOlderThan } from './audit.repository';

/** How long an audit entry is kept (D26); the database refuses to delete a younger one (its trigger). */
export const AUDIT_RETENTION_DAYS = 400;

/** Audit entries older than 400 days (D26), oldest first, in batches. */
export function auditLogRetention(): RetentionRule {
  return singleTableRule('audit_log', (em, limit) => deleteAuditEntriesOlderThan(em, AUDIT_RETENTION_DAYS, limit));
}
