import { AppError } from '../../foundation/errors/app-error';
import type { SqlPart } from '../../foundation/sql-part';
import { statementText } from '../db/prepared-reads';
import type { RecordedResult } from '../db/unit-of-work-scope';

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
 * except a bare reference, which needs no sealing (a booking's: the seal cost the keyed booking path
 * a tenth of its extra CPU).
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

export const CLAIM_ONE = `insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at, claim_token)
         values (?, ?, ?, 'RUNNING', now() + make_interval(secs => ?), now(), now() + make_interval(hours => ?), ?)
         on conflict (organization_id, key) ${TAKE_OVER}
         returning recovery_points`;

/** CLAIM_ONE for many keys (distinct: ON CONFLICT cannot change one row twice in a statement). */
export const CLAIM_MANY = `insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at, claim_token)
         select c.organization_id, c.key, c.fingerprint, 'RUNNING', now() + make_interval(secs => ?::int), now(), now() + make_interval(hours => ?::int), c.claim_token
           from unnest(?::text[], ?::text[], ?::text[], ?::uuid[]) as c(organization_id, key, fingerprint, claim_token)
         on conflict (organization_id, key) ${TAKE_OVER}
         returning claim_token::text, recovery_points`;

export const COMPLETE_MANY = `update idempotency_keys k
            set state = 'DONE', locked_until = null, response_status = a.status, response_headers = a.headers::jsonb, response_body = a.body
           from unnest(?::text[], ?::text[], ?::uuid[], ?::int[], ?::text[], ?::text[]) as a(organization_id, key, claim_token, status, headers, body)
          where k.organization_id = a.organization_id and k.key = a.key and k.claim_token = a.claim_token and k.state = 'RUNNING'`;

export const COMPLETE_ONE = `update idempotency_keys set state = 'DONE', locked_until = null, response_status = ?::int, response_headers = ?::text::jsonb, response_body = ?::text
       where organization_id = ? and key = ? and claim_token = ? and state = 'RUNNING'`;

/** OVERWRITE: the answer a change's statement stored, replaced by the one sent (IdempotencyKeyStore.overwrite). */
export const OVERWRITE_ANSWER = `update idempotency_keys set state = 'DONE', locked_until = null, response_status = ?::int, response_headers = ?::text::jsonb, response_body = ?::text
       where organization_id = ? and key = ? and claim_token = ?`;

/** Frees a key this request claimed, unless a change already committed under it (its recovery points keep it). */
export const FORGET_CLAIM = `delete from idempotency_keys where organization_id = ? and key = ? and claim_token = ? and state = 'RUNNING' and recovery_points is null returning key`;

/** Ends the lease of a key that holds recovery points: the retry takes it over at once. */
export const END_LEASE = `update idempotency_keys set locked_until = now() where organization_id = ? and key = ? and claim_token = ? and state = 'RUNNING'`;

/** A unit of work's recovery point, inside its transaction: written only while the request still holds the key (the fence). */
export const RECORD_POINT = `update idempotency_keys
           set recovery_points = coalesce(recovery_points, '{}'::jsonb) || jsonb_build_object(?::text, ?::text), actor = ?::text::jsonb
           where organization_id = ? and key = ? and claim_token = ? and state = 'RUNNING'
           returning key`;

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
 * Inside a change's own statement, when the request does not hold its key yet: the CTE `idem_point`
 * inserts the key's record, claimed by this request (RUNNING, its lease), with the recovery point and
 * the actor when `gate` has a row. With `answer` (the door knows the answer is the REST shape of what
 * the change returns) and a row in `gate`, the record is inserted DONE with that answer instead, and
 * without recovery point or actor: only a RUNNING record is ever recovered, and without a row in `gate`
 * nothing committed to recover. No ON CONFLICT: a record another request has fails the statement,
 * change and all (the unit of work then claims the key as a request that changed nothing yet would).
 * `gate` has at most one row, read as `g`.
 * Bindings: organization, key, fingerprint, lease seconds, hours kept, claim token; then step, point and
 * actor, or with `answer` status, headers and `answer`'s own.
 */
export const claimingPointCte = (gate: string, answer?: SqlPart): string =>
  // Built once per gate and answer expression (each request only binds its values).
  statementText(`idem_point:claim:${gate}:${answer?.sql ?? ''}`, () => {
  const made = 'g.id is not null';
  const columns = answer ? 'response_status, response_headers, response_body' : 'recovery_points, actor';
  const values = answer
    ? `case when ${made} then ?::int end, case when ${made} then ?::text::jsonb end, case when ${made} then ${answer.sql} end`
    : `case when ${made} then jsonb_build_object(?::text, ?::text) end, ?::text::jsonb`;
  return `idem_point as (
       insert into idempotency_keys (organization_id, key, fingerprint, state, locked_until, created_at, expires_at, claim_token, ${columns})
       select ?::text, ?::text, ?::text, ${answer ? `case when ${made} then 'DONE' else 'RUNNING' end` : `'RUNNING'`},
              ${answer ? `case when ${made} then null else now() + make_interval(secs => ?::int) end` : 'now() + make_interval(secs => ?::int)'},
              now(), now() + make_interval(hours => ?::int), ?::uuid,
              ${values}
         from (select 1) one left join ${gate} g on true
       returning state, response_body)`;
  });

/**
 * An answer stored by the change's own statement (`claimingPointCte`), kept as it is: it is the
 * resource as its own table and its webhook payload hold it, and holds no secret (the answers that
 * can, a new API key or a webhook signing secret, are stored sealed, by the door).
 */
export const UNSEALED_ANSWER = 'plain:';

/** Whether `error` is a statement's failure on a key's record another request has (a unique violation of idempotency_keys). */
export function isKeyConflict(error: unknown): boolean {
  const { code, constraint_name: constraint } = (error ?? {}) as { code?: unknown; constraint_name?: unknown };
  return code === '23505' && constraint === 'idempotency_keys_pkey';
}

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
