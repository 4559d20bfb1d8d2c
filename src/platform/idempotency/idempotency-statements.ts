import { AppError } from '../../foundation/errors/app-error';
import { statementText } from '../db/prepared-statements';
import { sqlStatements } from '../db/sql-statement';
import type { RecordedResult } from '../db/unit-of-work-scope';

const sql = sqlStatements(__filename);

/*
 * What the Idempotency-Key store (idempotency-key.store.ts) writes: its statements, and how a
 * recovery point is kept at rest.
 */

/** Seals what is stored at rest (AES-256-GCM under the server secret's key for `idempotent-answer`: see platform/crypto/secret-box.ts). */
export interface ResponseSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** A recovery point that is only a reference to a row (its class and id) is kept as it is: there is no secret in it. */
const REFERENCE = 'ref:';

function isReference(result: RecordedResult): boolean {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return false;
  const names = Object.keys(result);
  return names.length === 2 && typeof result.$entity === 'string' && typeof result.id === 'string';
}

/**
 * A recovery point as stored: sealed (it may hold a deleted row's last state or a value shown once),
 * except a bare reference, which needs no sealing (a booking's: the seal was a visible share of a keyed
 * booking's extra CPU, docs/performance.md).
 */
export function sealPoint(sealer: ResponseSealer, result: RecordedResult): string {
  const text = JSON.stringify(result);
  return isReference(result) ? `${REFERENCE}${text}` : sealer.seal(text);
}

export function openPoint(sealer: ResponseSealer, stored: string): RecordedResult {
  return JSON.parse(stored.startsWith(REFERENCE) ? stored.slice(REFERENCE.length) : openStored(sealer, stored)) as RecordedResult;
}

/**
 * What a claim takes over: a record past its lifetime, or a running one whose lease ran out (its
 * request died), the latter by a retry of the same request only (another fingerprint is a reuse),
 * keeping its recovery points (what its request committed before it died).
 */
const TAKE_OVER = `do update
           set fingerprint = excluded.fingerprint, state = 'RUNNING', locked_until = excluded.locked_until,
               created_at = excluded.created_at, expires_at = excluded.expires_at, claim_token = excluded.claim_token,
               response_status = null, response_headers = null, response_body = null,
               recovery_points = case when idempotency_keys.expires_at <= now() then null else idempotency_keys.recovery_points end,
               actor = case when idempotency_keys.expires_at <= now() then null else idempotency_keys.actor end
           where idempotency_keys.expires_at <= now()
              or (idempotency_keys.state = 'RUNNING' and idempotency_keys.locked_until <= now()
                  and (idempotency_keys.recovery_points is null or idempotency_keys.fingerprint = excluded.fingerprint))`;

/** A key's record, as the request that claims it and a retry find it. */
type KeyOf = { organizationId: string; key: string };
/** The record as this request claimed it (its claim token). */
type ClaimOf = KeyOf & { claimToken: string };

export const CLAIM_ONE = sql.statement<
  ClaimOf & { fingerprint: string; leaseSeconds: number; ttlHours: number },
  { recovery_points: Record<string, string> | null }
>(
  'claimOne',
  `insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at, claim_token)
         values (:organizationId, :key, :fingerprint, 'RUNNING', now() + make_interval(secs => :leaseSeconds), now(), now() + make_interval(hours => :ttlHours), :claimToken)
         on conflict (organization_id, key) ${TAKE_OVER}
         returning recovery_points`,
);

/** CLAIM_ONE for many keys (distinct: ON CONFLICT cannot change one row twice in a statement), by position in the arrays. */
export const CLAIM_MANY = sql.statement<
  { leaseSeconds: number; ttlHours: number; organizationIds: string[]; keys: string[]; fingerprints: string[]; claimTokens: string[] },
  { claim_token: string; recovery_points: Record<string, string> | null }
>(
  'claimMany',
  `insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at, claim_token)
         select c.organization_id, c.key, c.fingerprint, 'RUNNING', now() + make_interval(secs => :leaseSeconds::int), now(), now() + make_interval(hours => :ttlHours::int), c.claim_token
           from unnest(:organizationIds::text[], :keys::text[], :fingerprints::text[], :claimTokens::uuid[]) as c(organization_id, key, fingerprint, claim_token)
         on conflict (organization_id, key) ${TAKE_OVER}
         returning claim_token::text, recovery_points`,
);

/** A record as a request that could not claim it reads it (while it lives). */
export const READ_KEY = sql.statement<
  KeyOf,
  { fingerprint: string; state: 'RUNNING' | 'DONE'; response_status: number | null; response_headers: Record<string, string> | null; response_body: string | null }
>(
  'readKey',
  `select fingerprint, state, response_status, response_headers, response_body
         from idempotency_keys where organization_id = :organizationId and key = :key and expires_at > now()`,
);

/** Answers of many claims, by position in the arrays. */
export const COMPLETE_MANY = sql.statement<{
  organizationIds: string[];
  keys: string[];
  claimTokens: string[];
  statuses: number[];
  headers: string[];
  bodies: string[];
}>(
  'completeMany',
  `update idempotency_keys k
            set state = 'DONE', locked_until = null, response_status = a.status, response_headers = a.headers::jsonb, response_body = a.body
           from unnest(:organizationIds::text[], :keys::text[], :claimTokens::uuid[], :statuses::int[], :headers::text[], :bodies::text[]) as a(organization_id, key, claim_token, status, headers, body)
          where k.organization_id = a.organization_id and k.key = a.key and k.claim_token = a.claim_token and k.state = 'RUNNING'`,
);

export const COMPLETE_ONE = sql.statement<ClaimOf & { status: number; headers: string; body: string }>(
  'completeOne',
  `update idempotency_keys set state = 'DONE', locked_until = null, response_status = :status::int, response_headers = :headers::text::jsonb, response_body = :body::text
       where organization_id = :organizationId and key = :key and claim_token = :claimToken and state = 'RUNNING'`,
);

/** Frees a key this request claimed, unless a change already committed under it (its recovery points keep it). */
export const FORGET_CLAIM = sql.statement<ClaimOf, { key: string }>(
  'forgetClaim',
  `delete from idempotency_keys where organization_id = :organizationId and key = :key and claim_token = :claimToken and state = 'RUNNING' and recovery_points is null returning key`,
);

/** Ends the lease of a key that holds recovery points: the retry takes it over at once. */
export const END_LEASE = sql.statement<ClaimOf>(
  'endLease',
  `update idempotency_keys set locked_until = now() where organization_id = :organizationId and key = :key and claim_token = :claimToken and state = 'RUNNING'`,
);

const RECORD_POINT_STATEMENT = sql.statement<ClaimOf & { step: string; point: string; actor: string }, { key: string }>(
  'recordPoint',
  `update idempotency_keys
           set recovery_points = coalesce(recovery_points, '{}'::jsonb) || jsonb_build_object(:step::text, :point::text), actor = :actor::text::jsonb
           where organization_id = :organizationId and key = :key and claim_token = :claimToken and state = 'RUNNING'
           returning key`,
);

/**
 * A unit of work's recovery point, inside its transaction: written only while the request still holds
 * the key (the fence). Positional (knex's `?`, each name used once, in the order step, point, actor,
 * organizationId, key, claimToken): held-key.ts passes its values by position.
 */
export const RECORD_POINT = RECORD_POINT_STATEMENT.knexText;

/**
 * Inside a change's own statement: the recovery point, written when `gate` has a row, from the values
 * idem_claim locked, not the row's own (see booking.repository.ts: a row locked by a CTE is changed
 * from that CTE's values).
 */
export const pointCte = (gate: string): string => statementText(`idem_point:${gate}`, () => `idem_point as (
       update idempotency_keys k
          set recovery_points = coalesce(c.recovery_points, '{}'::jsonb) || jsonb_build_object(?::text, ?::text), actor = ?::text::jsonb
         from idem_claim c
        where k.organization_id = ?::text and k.key = ?::text and k.claim_token = ?::uuid and exists (select 1 from ${gate})
       returning k.key)`);

/**
 * An answer stored unsealed by an earlier version of the service (a booking's answer, stored by its own
 * statement); kept readable while such records live (their 24 hours), and skipped by a reseal.
 */
export const UNSEALED_ANSWER = 'plain:';

/**
 * Opens a stored answer or recovery point. One this instance cannot open was sealed under a server
 * secret it lacks (D24: refused at start, so only while a rotation's restarts are under way): 503, for
 * the client to retry (on an instance that has it), not a 500.
 */
export function openStored(sealer: ResponseSealer, sealed: string): string {
  if (sealed.startsWith(UNSEALED_ANSWER)) return sealed.slice(UNSEALED_ANSWER.length);
  try {
    return sealer.open(sealed);
  } catch {
    throw AppError.serviceUnavailable('This instance cannot read the answer stored for this Idempotency-Key yet; try again shortly');
  }
}
