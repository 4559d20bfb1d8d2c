import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../foundation/ids';
import type { SqlPart } from '../../foundation/sql-part';
import type { Actor } from '../auth/actor';
import { executeOnOrm } from '../db/prepared-statements';
import { fragment, sqlStatements } from '../db/sql-statement';
import type { UnitOfWork } from '../db/unit-of-work-scope';

const sql = sqlStatements(__filename);

/*
 * The audit log (D26): who changed what, written by the command inside its unit of work, so the entry
 * commits or rolls back with the change (as the outbox's rows do, src/platform/outbox/outbox.ts). The
 * writer knows nothing of keys, members or events: the action, the target and the summary are the
 * caller's. Entries are never edited (a trigger refuses it, Migration20261129010000_audit_log).
 *
 * A summary says what changed (a role's `from` and `to`, a setting's old and new value, an endpoint's
 * URL), never a secret: no key, key hash, signing secret, password or invitation token. `summaryOf`
 * drops any field whose name says it holds one, as a second line of defence.
 */

/** The audited actions (D26), as `resource.verb`. */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'member.added',
  'member.invited',
  'member.role_changed',
  'member.removed',
  'organization.settings_changed',
  'organization.allowlist_changed',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'event.published',
  'event.cancelled',
  'event.deleted',
  'booking.transferred',
  'booking.exchanged',
  'series.created',
  'series.updated',
  'series.deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** JSON of a summary: what changed, in plain values. */
export type AuditValue = null | boolean | number | string | AuditValue[] | { [name: string]: AuditValue };
export type AuditSummary = { [name: string]: AuditValue };

/** What a command tells the log about its change. */
export interface AuditChange {
  readonly organizationId: string;
  readonly action: AuditAction;
  /** The id of what changed (key, member, endpoint, event, organization). */
  readonly targetId: string;
  readonly summary?: AuditSummary;
}

/** The actor's columns: its kind, its id (member or key; none for the CLI), and what to show. */
export type AuditActorKind = 'MEMBER' | 'API_KEY' | 'CLI' | 'SYSTEM';

/** Field names that never enter a summary, whatever a caller passes. */
const SECRET_NAME = /secret|password|token|hash|ciphertext|^key$|apikey|credential/i;

/** The summary without any field named like a secret (at any depth). */
export function summaryOf(summary: AuditSummary | undefined): AuditSummary {
  const clean = (value: AuditValue): AuditValue => {
    if (Array.isArray(value)) return value.map(clean);
    if (value === null || typeof value !== 'object') return value;
    const kept: AuditSummary = {};
    for (const [name, item] of Object.entries(value)) if (!SECRET_NAME.test(name) && item !== undefined) kept[name] = clean(item);
    return kept;
  };
  return clean(summary ?? {}) as AuditSummary;
}

/**
 * The entry's values as SQL: the actor's label is read by the same statement (a member's email, a
 * key's prefix when the authenticator did not carry it), so naming the actor costs no round trip.
 * `organization` and `target` are ids as SQL (a binding, or a column of the change's row).
 */
function entryValues(unit: UnitOfWork, change: Pick<AuditChange, 'action' | 'summary'>, organization: SqlPart, target: SqlPart): SqlPart {
  const [kind, actorId, label] = actorColumns(unit.actor);
  return {
    sql: `?::text, ${organization.sql}, ?::text, ?::text, ?::text, ${label.sql}, ${target.sql}, ?::text::jsonb, ?::text, ?::text, now()`,
    bindings: [
      newId('aud'),
      ...organization.bindings,
      change.action,
      kind,
      actorId,
      ...label.bindings,
      ...target.bindings,
      JSON.stringify(summaryOf(change.summary)),
      unit.clientIp ?? null,
      unit.requestId ?? null,
    ],
  };
}

const bound = (value: string): SqlPart => ({ sql: '?::text', bindings: [value] });

function actorColumns(actor: Actor): [AuditActorKind, string | null, SqlPart] {
  switch (actor.kind) {
    case 'member':
      return ['MEMBER', actor.memberId, { sql: `coalesce((select email from members where id = ?::text), ?::text)`, bindings: [actor.memberId, actor.memberId] }];
    case 'api-key':
      return actor.prefix !== undefined
        ? ['API_KEY', actor.apiKeyId, { sql: '?::text', bindings: [actor.prefix] }]
        : ['API_KEY', actor.apiKeyId, { sql: `coalesce((select prefix from api_keys where id = ?::text), ?::text)`, bindings: [actor.apiKeyId, actor.apiKeyId] }];
    case 'operator':
      return ['CLI', null, { sql: '?::text', bindings: ['cli'] }];
    case 'system':
      return ['SYSTEM', null, { sql: '?::text', bindings: [`system:${actor.task}`] }];
  }
}

const COLUMNS = 'id, organization_id, action, actor_kind, actor_id, actor_label, target_id, summary, client_ip, request_id, created_at';

/**
 * One entry, its values a positional part (entryValues): one variant per text of that part, which
 * differs only by how the actor's label is read (bound, a member's email, a key's prefix).
 */
const RECORD_AUDIT = sql.family<{ values: string }, { values: readonly unknown[] }>(
  'recordAudit',
  ({ values }) => `insert into audit_log (${COLUMNS}) select ${fragment('values', values)}`,
  {
    key: ({ values }) => values,
    examples: () => {
      const example = (actor: Actor) => ({ values: entryValues({ actor }, { action: 'member.added' }, bound('org_example'), bound('target_example')).sql });
      return {
        'label bound (a key with its prefix, the CLI, the system)': example({ kind: 'operator' }),
        "a member's email": example({ kind: 'member', memberId: 'mem_example' }),
        "a key's prefix": example({ kind: 'api-key', apiKeyId: 'key_example' }),
      };
    },
  },
);

/** Writes one entry in the unit's transaction (`tx`): one statement, committed or rolled back with the change. */
export async function recordAudit(tx: EntityManager, unit: UnitOfWork, change: AuditChange): Promise<void> {
  const values = entryValues(unit, change, bound(change.organizationId), bound(change.targetId));
  await executeOnOrm(tx, RECORD_AUDIT({ values: values.sql }), { values: values.bindings });
}

/**
 * The entry as a CTE of the change's own statement (D26: no statement and no round trip of its
 * own, as outboxCtes), written for each row of the CTE `gate` (the change was made) that matches
 * `where` (SQL on the gate's row `g`); the target's id is the gate's column `id` (`g.id`), the
 * organization the given one or, when none is given, the gate's `organization_id`. Adds the CTE `audit_entry`.
 */
export function auditCtes(
  unit: UnitOfWork,
  change: Pick<AuditChange, 'action' | 'summary'> & { readonly organizationId?: string },
  gate: string,
  where = 'true',
): SqlPart {
  const organization = change.organizationId === undefined ? { sql: 'g.organization_id', bindings: [] } : bound(change.organizationId);
  const values = entryValues(unit, change, organization, { sql: 'g.id', bindings: [] });
  return {
    sql: `audit_entry as (
       insert into audit_log (${COLUMNS})
       select ${values.sql} from ${gate} g where ${where})`,
    bindings: values.bindings,
  };
}
