import { countDeleted, singleTableRule, type RetentionRule } from '../../platform/retention/retention-job';

/** How long an audit entry is kept (D26); the database refuses to delete a younger one (its trigger). */
export const AUDIT_RETENTION_DAYS = 400;

/** Audit entries older than 400 days (D26), oldest first, in batches. */
export function auditLogRetention(): RetentionRule {
  return singleTableRule('audit_log', (em, limit) =>
    countDeleted(
      em,
      `with gone as (
         delete from audit_log where id in (
           select id from audit_log where created_at < now() - ?::int * interval '1 day'
            order by created_at limit ? for update skip locked)
         returning 1)
       select count(*)::int as deleted from gone`,
      [AUDIT_RETENTION_DAYS, limit],
    ),
  );
}
