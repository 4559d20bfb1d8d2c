import type { EntityManager } from '@mikro-orm/postgresql';
import type { ListPosition } from '../../platform/db/list-position';
import { countDeleted } from '../../platform/retention/retention-job';
import { AuditActorKind, type AuditEntry } from './audit.types';

/*
 * The only reads of the audit log (its writes are the platform's, src/platform/audit/audit-log.ts),
 * and the deletion of entries past their retention (audit.retention.ts). The reads are always scoped by the organization. Newest first, ties broken by id; a cursor page seeks on
 * (created_at, id) (audit_log_organization_created_index, or its action twin).
 */

export interface AuditQuery {
  readonly page: number;
  readonly limit: number;
  readonly action?: string | null;
  /** A member's id or email, a key's id or prefix, `cli`, or `system:<task>`. */
  readonly actor?: string | null;
  /** Entries at or after this instant. */
  readonly since?: Date | null;
  /** Entries strictly before this instant. */
  readonly until?: Date | null;
  /** Where a cursor page starts (D25): after this entry, instead of a page number. */
  readonly after?: ListPosition | null;
}

interface AuditRow {
  id: string;
  action: string;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor_label: string;
  target_id: string;
  summary: Record<string, unknown>;
  client_ip: string | null;
  request_id: string | null;
  created_at: Date;
  sort_key: string;
}

/** The filters as SQL on `a` (the organization first), with their values. */
function filters(organizationId: string, query: AuditQuery): { sql: string; values: unknown[] } {
  const clauses = ['a.organization_id = ?'];
  const values: unknown[] = [organizationId];
  const add = (clause: string, ...clauseValues: unknown[]) => {
    clauses.push(clause);
    values.push(...clauseValues);
  };
  if (query.action != null) add('a.action = ?', query.action);
  if (query.actor != null) add('(a.actor_id = ? or a.actor_label = ?)', query.actor, query.actor);
  if (query.since != null) add('a.created_at >= ?', query.since);
  if (query.until != null) add('a.created_at < ?', query.until);
  return { sql: clauses.join(' and '), values };
}

/** One page of the organization's entries (one row more says whether another page follows) and the total. */
export async function auditPage(
  em: EntityManager,
  organizationId: string,
  query: AuditQuery,
): Promise<{ entries: AuditEntry[]; total: number; next: ListPosition | null }> {
  const where = filters(organizationId, query);
  const seek = query.after ? `and (a.created_at, a.id) < ('epoch'::timestamptz + ?::bigint * interval '1 microsecond', ?)` : '';
  const seekValues = query.after ? [query.after[0], query.after[1]] : [];
  const offset = query.after ? 0 : (query.page - 1) * query.limit;
  const connection = em.getConnection();
  const [rows, [{ total }]] = await Promise.all([
    connection.execute<AuditRow[]>(
      `select a.id, a.action, a.actor_kind, a.actor_id, a.actor_label, a.target_id, a.summary, a.client_ip, a.request_id, a.created_at,
              (extract(epoch from a.created_at) * 1000000)::bigint::text as sort_key
         from audit_log a where ${where.sql} ${seek}
        order by a.created_at desc, a.id desc limit ? offset ?`,
      [...where.values, ...seekValues, query.limit + 1, offset],
    ),
    connection.execute<Array<{ total: number }>>(`select count(*)::int as total from audit_log a where ${where.sql}`, where.values),
  ]);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map(entryOf),
    total,
    next: rows.length > query.limit && last ? [last.sort_key, last.id] : null,
  };
}

function entryOf(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    action: row.action,
    actor: { kind: row.actor_kind, id: row.actor_id, label: row.actor_label },
    targetId: row.target_id,
    summary: row.summary,
    clientIp: row.client_ip,
    requestId: row.request_id,
    createdAt: new Date(row.created_at),
  };
}

/** Audit entries older than `days` days, oldest first: at most `limit` (the database refuses a younger one, its trigger). */
export function deleteAuditEntriesOlderThan(em: EntityManager, days: number, limit: number): Promise<number> {
  return countDeleted(
    em,
    `with gone as (
         delete from audit_log where id in (
           select id from audit_log where created_at < now() - ?::int * interval '1 day'
            order by created_at limit ? for update skip locked)
         returning 1)
       select count(*)::int as deleted from gone`,
    [days, limit],
  );
}
