import type { EntityManager } from '@mikro-orm/postgresql';
import type { ListPosition } from '../../platform/db/list-position';
import { sqlStatements } from '../../platform/db/sql-statement';
import { countDeleted } from '../../platform/retention/retention-job';
import { AuditActorKind, type AuditEntry } from './audit.types';

const sql = sqlStatements(__filename);

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

/** Which filters a page applies (each present one is a clause), and whether it seeks after a cursor: one statement per shape. */
interface AuditShape {
  readonly action: boolean;
  readonly actor: boolean;
  readonly since: boolean;
  readonly until: boolean;
  readonly after: boolean;
}

type AuditParams = {
  organizationId: string;
  action: string | null | undefined;
  actor: string | null | undefined;
  since: Date | null | undefined;
  until: Date | null | undefined;
  sortKey: string | null;
  afterId: string | null;
  limit: number;
  offset: number;
};

/** The filters as SQL on `a` (the organization first). */
function filters(shape: AuditShape): string {
  const clauses = ['a.organization_id = :organizationId'];
  if (shape.action) clauses.push('a.action = :action');
  if (shape.actor) clauses.push('(a.actor_id = :actor or a.actor_label = :actor)');
  if (shape.since) clauses.push('a.created_at >= :since');
  if (shape.until) clauses.push('a.created_at < :until');
  return clauses.join(' and ');
}

const shapeKey = (shape: AuditShape) => `${+shape.action}${+shape.actor}${+shape.since}${+shape.until}${+shape.after}`;
const NO_FILTER: AuditShape = { action: false, actor: false, since: false, until: false, after: false };
const EVERY_FILTER: AuditShape = { action: true, actor: true, since: true, until: true, after: false };
const auditExamples = () => ({ 'no filter': NO_FILTER, 'every filter': EVERY_FILTER, 'every filter, after a cursor': { ...EVERY_FILTER, after: true } });

const AUDIT_PAGE = sql.family<AuditShape, AuditParams, AuditRow>(
  'auditPage',
  (shape) => `select a.id, a.action, a.actor_kind, a.actor_id, a.actor_label, a.target_id, a.summary, a.client_ip, a.request_id, a.created_at,
              (extract(epoch from a.created_at) * 1000000)::bigint::text as sort_key
         from audit_log a where ${filters(shape)} ${shape.after ? `and (a.created_at, a.id) < ('epoch'::timestamptz + :sortKey::bigint * interval '1 microsecond', :afterId)` : ''}
        order by a.created_at desc, a.id desc limit :limit offset :offset`,
  { key: shapeKey, examples: auditExamples },
);

// The total ignores the cursor: one variant per set of filters (`after` left out of its key and its text).
const AUDIT_TOTAL = sql.family<AuditShape, AuditParams, { total: number }>(
  'auditTotal',
  (shape) => `select count(*)::int as total from audit_log a where ${filters(shape)}`,
  { key: (shape) => shapeKey({ ...shape, after: false }), examples: () => ({ 'no filter': NO_FILTER, 'every filter': EVERY_FILTER }) },
);

/** One page of the organization's entries (one row more says whether another page follows) and the total. */
export async function auditPage(
  em: EntityManager,
  organizationId: string,
  query: AuditQuery,
): Promise<{ entries: AuditEntry[]; total: number; next: ListPosition | null }> {
  const shape: AuditShape = {
    action: query.action != null,
    actor: query.actor != null,
    since: query.since != null,
    until: query.until != null,
    after: query.after != null,
  };
  const params: AuditParams = {
    organizationId,
    action: query.action,
    actor: query.actor,
    since: query.since,
    until: query.until,
    sortKey: query.after ? query.after[0] : null,
    afterId: query.after ? query.after[1] : null,
    limit: query.limit + 1,
    offset: query.after ? 0 : (query.page - 1) * query.limit,
  };
  const page = AUDIT_PAGE(shape);
  const count = AUDIT_TOTAL(shape);
  // On the connection, not the entity manager: the two run side by side, each on a connection of its own.
  const connection = em.getConnection();
  const [rows, [{ total }]] = await Promise.all([
    connection.execute<AuditRow[]>(page.knexText, page.knexValues(params)),
    connection.execute<Array<{ total: number }>>(count.knexText, count.knexValues(params)),
  ]);
  const onPage = rows.slice(0, query.limit);
  const last = onPage.at(-1);
  return {
    entries: onPage.map(entryOf),
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

const DELETE_OLDER_THAN = sql.statement<{ days: number; limit: number }>(
  'deleteAuditEntriesOlderThan',
  `with gone as (
         delete from audit_log where id in (
           select id from audit_log where created_at < now() - :days::int * interval '1 day'
            order by created_at limit :limit for update skip locked)
         returning 1)
       select count(*)::int as deleted from gone`,
);

/** Audit entries older than `days` days, oldest first: at most `limit` (the database refuses a younger one, its trigger). */
export function deleteAuditEntriesOlderThan(em: EntityManager, days: number, limit: number): Promise<number> {
  return countDeleted(em, DELETE_OLDER_THAN, { days, limit });
}
