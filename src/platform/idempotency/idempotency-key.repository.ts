import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../crypto/secret-box';
import type { ResealBatch } from '../crypto/reseal';
import { countDeleted } from '../retention/retention-job';
import { UNSEALED_ANSWER } from './idempotency-statements';

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
    const rows = await tx.execute<SealedRecord[]>(
      `select organization_id, key, response_body, recovery_points from idempotency_keys
        where (organization_id, key) > (?, ?) and expires_at > now()
          and ((response_body not like ? and response_body not like '${UNSEALED_ANSWER}%')
               or exists (select 1 from jsonb_each_text(recovery_points) p where p.value not like ? and p.value not like '${UNSEALED}%'))
        order by organization_id, key limit ? for update skip locked`,
      [after?.[0] ?? '', after?.[1] ?? '', current, current, limit],
    );
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
      await tx.execute(
        `update idempotency_keys k set response_body = v.body, recovery_points = v.points
           from jsonb_to_recordset(?::jsonb) as v(organization_id text, key text, body text, points jsonb)
          where k.organization_id = v.organization_id and k.key = v.key`,
        [JSON.stringify(changed)],
      );
    }
    const last = rows.at(-1);
    return { resealed: changed.length, unreadable, last: last === undefined ? undefined : ([last.organization_id, last.key] as const) };
  });
}

/**
 * Idempotency-Key records past their lifetime (D17: `expires_at` is at least 24 hours after the key's
 * first use, IDEMPOTENCY_KEY_TTL_HOURS). The store already treats such a record as absent, so
 * deleting it changes no answer; a record inside its lifetime is never touched.
 */
export function deleteExpiredIdempotencyKeys(em: EntityManager, limit: number): Promise<number> {
  return countDeleted(
    em,
    `with gone as (
       delete from idempotency_keys where (organization_id, key) in (
         select organization_id, key from idempotency_keys where expires_at <= now()
          order by expires_at limit ? for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
    [limit],
  );
}
