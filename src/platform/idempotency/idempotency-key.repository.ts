import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../crypto/secret-box';
import type { ResealBatch } from '../crypto/reseal';
import { executeOnOrm } from '../db/prepared-statements';
import { sqlStatements } from '../db/sql-statement';
import { countDeleted } from '../retention/retention-job';
import { UNSEALED_ANSWER } from './idempotency-statements';

const sql = sqlStatements(__filename);

/*
 * The statements that lock Idempotency-Key records (idempotency_keys): the claim inside a change's own
 * statement, the re-sealing batches of a secret rotation, and the deletion of expired records. The
 * key store's other statements (idempotency-statements.ts) lock only the rows they write, as any write.
 */

/** Inside a change's own statement: the claim, locked and checked first. */
export const CLAIM_CTE = `idem_claim as (
       select key, recovery_points from idempotency_keys
        where organization_id = ?::text and key = ?::text and claim_token = ?::uuid and state = 'RUNNING' for update)`;

interface SealedRecord {
  organization_id: string;
  key: string;
  response_body: string | null;
  recovery_points: Record<string, string> | null;
}

/** A recovery point kept unsealed (a bare reference to a row: `ref:{…}`, see the key store): nothing to re-seal. */
const UNSEALED = 'ref:';

/** Records after (`afterOrganizationId`, `afterKey`) holding a value not sealed under the `current` pattern (a LIKE pattern), locked. */
const SEALED_RECORDS = sql.statement<{ afterOrganizationId: string; afterKey: string; current: string; limit: number }, SealedRecord>(
  'sealedRecords',
  `select organization_id, key, response_body, recovery_points from idempotency_keys
        where (organization_id, key) > (:afterOrganizationId, :afterKey) and expires_at > now()
          and ((response_body not like :current and response_body not like '${UNSEALED_ANSWER}%')
               or exists (select 1 from jsonb_each_text(recovery_points) p where p.value not like :current and p.value not like '${UNSEALED}%'))
        order by organization_id, key limit :limit for update skip locked`,
);
const WRITE_RESEALED = sql.statement<{ changed: string }>(
  'writeResealed',
  `update idempotency_keys k set response_body = v.body, recovery_points = v.points
           from jsonb_to_recordset(:changed::jsonb) as v(organization_id text, key text, body text, points jsonb)
          where k.organization_id = v.organization_id and k.key = v.key`,
);

/**
 * One batch of `admin secret rotate` (D24) over the Idempotency-Key records that hold a value sealed
 * under another secret (a stored answer, recovery points): locked (skipping those a request holds),
 * re-sealed under the current secret, written back in one statement. Expired records are left to the
 * sweep. Keys of records that open under no secret are returned as `organization_id/key`.
 */
export async function resealIdempotencyRecords(
  em: EntityManager,
  box: SecretBox,
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<ResealBatch<readonly [string, string]>> {
  const current = box.sealedUnderCurrentPattern();
  return em.fork().transactional(async (tx) => {
    const rows = await executeOnOrm(tx, SEALED_RECORDS, { afterOrganizationId: after?.[0] ?? '', afterKey: after?.[1] ?? '', current, limit });
    const unreadable: string[] = [];
    const changed: Array<{ organization_id: string; key: string; body: string | null; points: Record<string, string> | null }> = [];
    for (const row of rows) {
      let readable = true;
      const reseal = (sealed: string): string => {
        if (sealed.startsWith(UNSEALED) || sealed.startsWith(UNSEALED_ANSWER)) return sealed;
        const value = box.reseal(sealed);
        if (value === undefined) readable = false;
        return value ?? sealed;
      };
      const body = row.response_body === null ? null : reseal(row.response_body);
      const points = row.recovery_points === null ? null : Object.fromEntries(Object.entries(row.recovery_points).map(([step, sealed]) => [step, reseal(sealed)]));
      if (!readable) unreadable.push(`${row.organization_id}/${row.key}`);
      if (body !== row.response_body || JSON.stringify(points) !== JSON.stringify(row.recovery_points)) {
        changed.push({ organization_id: row.organization_id, key: row.key, body, points });
      }
    }
    if (changed.length > 0) {
      await executeOnOrm(tx, WRITE_RESEALED, { changed: JSON.stringify(changed) });
    }
    const last = rows.at(-1);
    return { resealed: changed.length, unreadable, last: last === undefined ? undefined : ([last.organization_id, last.key] as const) };
  });
}

const DELETE_EXPIRED = sql.statement<{ limit: number }>(
  'deleteExpiredIdempotencyKeys',
  `with gone as (
       delete from idempotency_keys where (organization_id, key) in (
         select organization_id, key from idempotency_keys where expires_at <= now()
          order by expires_at limit :limit for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
);

/**
 * Idempotency-Key records past their lifetime (D17: `expires_at` is at least 24 hours after the key's
 * first use, IDEMPOTENCY_KEY_TTL_HOURS). The store already treats such a record as absent, so
 * deleting it changes no answer; a record inside its lifetime is never touched.
 */
export function deleteExpiredIdempotencyKeys(em: EntityManager, limit: number): Promise<number> {
  return countDeleted(em, DELETE_EXPIRED, { limit });
}
