import { auditCtes } from '../../platform/audit/audit-log';
import { queryStatement, type PreparedStatements } from '../../platform/db/prepared-statements';
import { fragment, sqlStatements } from '../../platform/db/sql-statement';
import type { UnitOfWork } from '../../platform/db/unit-of-work-scope';
import type { AttemptOutcome } from './webhook-sender';

const sql = sqlStatements(__filename);

/*
 * The delivery worker's statements (webhook-worker.ts runs them): claiming due deliveries across
 * organizations, and recording each attempt with what follows from it. Fixed text, run as prepared
 * statements on the service's pool of one-statement writes (planned once per connection, and written
 * to the socket with the bookings of the same turn of the event loop); through the ORM, each was sent
 * with its values inlined and planned again, on a connection of its own: with an endpoint subscribed
 * to booking.created, a ticket drop booked far slower than without one (docs/performance.md).
 */

/** An endpoint whose every attempt has failed for this long is disabled (D18). */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** Who disables an endpoint that failed for 5 days, in the audit log (D26): the delivery worker. */
const DELIVERY_UNIT: UnitOfWork = { actor: { kind: 'system', task: 'webhook-delivery' } };

/** A delivery the worker claimed, with its message and endpoint. */
export interface ClaimedRow {
  organization_id: string;
  delivery_id: string;
  attempt_count: number;
  retry_index: number;
  interrupted: Date | null;
  message_id: string;
  body: string;
  /** The traceparent of the change that wrote the message (D27), or null. */
  trace_parent: string | null;
  endpoint_id: string;
  url: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints for `leaseMs`, in one statement: locked
 * FOR UPDATE SKIP LOCKED (a delivery another worker is claiming is skipped, not waited for), then
 * leased (locked_until and next_attempt_at move `leaseMs` ahead) and its attempt counted.
 */
export function claimDueDeliveries(statements: PreparedStatements, limit: number, leaseMs: number): Promise<ClaimedRow[]> {
  return queryStatement(statements, CLAIM_DUE, { limit, leaseMs });
}

const CLAIM_DUE = sql.statement<{ limit: number; leaseMs: number }, ClaimedRow>(
  'claimDueDeliveries',
  `with due as (
         select d.id, d.locked_until from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
         where d.status = 'PENDING' and d.next_attempt_at <= now() and e.enabled
         order by d.next_attempt_at limit :limit::int for update of d skip locked)
       update webhook_deliveries d
       set attempt_count = d.attempt_count + 1, locked_until = now() + :leaseMs::int * interval '1 millisecond',
           next_attempt_at = now() + :leaseMs::int * interval '1 millisecond'
       from due, webhook_messages m, webhook_endpoints e
       where d.id = due.id and m.id = d.message_id and e.id = d.endpoint_id
       returning d.organization_id, d.id as delivery_id, d.attempt_count, d.retry_index, due.locked_until as interrupted, m.id as message_id, m.body, m.trace_parent,
         e.id as endpoint_id, e.url, e.secret_ciphertext, e.previous_secret_ciphertext, e.previous_secret_expires_at`,
);

const RECORD_INTERRUPTED = sql.statement<{ organizationId: string; deliveryId: string; attemptNumber: number; attemptedAt: Date }>(
  'recordInterruptedAttempt',
  `insert into webhook_attempts (organization_id, delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_body)
       values (:organizationId, :deliveryId, :attemptNumber::int, :attemptedAt::timestamptz, null, 0, 'interrupted: the delivering process stopped before recording a result', null)
       on conflict (organization_id, delivery_id, attempt_number) do nothing`,
);

/** Records an attempt whose worker's lease ran out without a result: it died (or hung) during that attempt. */
export function recordInterruptedAttempt(statements: PreparedStatements, row: ClaimedRow): Promise<unknown> {
  return queryStatement(statements, RECORD_INTERRUPTED, {
    organizationId: row.organization_id,
    deliveryId: row.delivery_id,
    attemptNumber: row.attempt_count - 1,
    attemptedAt: new Date(row.interrupted as Date),
  });
}

/** What an attempt leads to: the delivery's new status and, when it is retried, in how long. */
export interface AttemptRecord {
  readonly attemptedAt: Date;
  readonly outcome: AttemptOutcome;
  readonly traceId: string | null;
  readonly status: 'SUCCEEDED' | 'FAILED' | 'PENDING';
  readonly retryIn: number | undefined;
}

/**
 * The audit entry of an endpoint this attempt disables, by the system (D26). Its text is the same on
 * every call (the same unit, change, gate and condition): RECORD_ATTEMPT holds it once, a call takes its
 * values (a new entry id).
 */
const disabledAudit = () =>
  auditCtes(
    DELIVERY_UNIT,
    { action: 'webhook_endpoint.updated', summary: { enabled: { from: true, to: false }, disabledReason: 'every message failed for 5 days' } },
    'endpoint',
    'g.was_enabled and not g.enabled',
  );

/**
 * One statement (atomic, one round trip): the attempt; the delivery, only while the lease is still
 * ours (same attempt number, else another worker owns it now); the endpoint's failure clock; and,
 * when this attempt disables the endpoint, its audit entry by the system (D26).
 */
const RECORD_ATTEMPT = sql.statement<
  {
    organizationId: string;
    deliveryId: string;
    attemptNumber: number;
    attemptedAt: Date;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    responseBody: string | null;
    traceId: string | null;
    status: AttemptRecord['status'];
    failed: 0 | 1;
    retryIn: number | null;
    ok: boolean;
    disableAfterMs: number;
    audit: readonly unknown[];
  },
  { updated: number; disabled: boolean | null }
>(
  'recordAttempt',
  `with attempt as (
         insert into webhook_attempts (organization_id, delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_body, trace_id)
         values (:organizationId, :deliveryId, :attemptNumber::int, :attemptedAt::timestamptz, :statusCode::int, :durationMs::int, :error, :responseBody, :traceId) returning delivery_id),
       delivery as (
         update webhook_deliveries set status = :status, retry_index = retry_index + :failed::int, locked_until = null, last_attempt_at = :attemptedAt::timestamptz,
           next_attempt_at = case when :retryIn::int is null then next_attempt_at else now() + :retryIn::int * interval '1 millisecond' end
         where id = :deliveryId and attempt_count = :attemptNumber::int returning endpoint_id),
       endpoint as (
         update webhook_endpoints e set
           failing_since = case when :ok::boolean then null else coalesce(e.failing_since, now()) end,
           enabled = case when not :ok::boolean and e.failing_since <= now() - :disableAfterMs::bigint * interval '1 millisecond' then false else e.enabled end,
           disabled_reason = case when not :ok::boolean and e.failing_since <= now() - :disableAfterMs::bigint * interval '1 millisecond'
             then 'every message failed for 5 days' else e.disabled_reason end
         from delivery, webhook_endpoints was
         where e.id = delivery.endpoint_id and was.id = e.id and (not :ok::boolean or e.failing_since is not null)
         returning e.id, e.organization_id, e.enabled, was.enabled as was_enabled),
       ${fragment('audit', disabledAudit().sql)}
       select (select count(*) from delivery)::int as updated, (select not enabled from endpoint) as disabled`,
);

/**
 * Records an attempt. Returns whether the delivery was still the worker's (else nothing changed) and
 * whether this attempt disabled the endpoint.
 */
export async function recordAttempt(
  statements: PreparedStatements,
  row: ClaimedRow,
  { attemptedAt, outcome, traceId, status, retryIn }: AttemptRecord,
): Promise<{ updated: boolean; disabled: boolean }> {
  const audit = disabledAudit();
  const [result] = await queryStatement(statements, RECORD_ATTEMPT, {
    organizationId: row.organization_id,
    deliveryId: row.delivery_id,
    attemptNumber: row.attempt_count,
    attemptedAt,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    error: outcome.error,
    responseBody: outcome.responseBody,
    traceId,
    status,
    failed: outcome.ok ? 0 : 1,
    retryIn: retryIn ?? null,
    ok: outcome.ok,
    disableAfterMs: DISABLE_AFTER_MS,
    audit: audit.bindings,
  });
  return { updated: result.updated > 0, disabled: result.disabled === true };
}
