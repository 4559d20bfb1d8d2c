import type { EntityManager } from '@mikro-orm/postgresql';
import { countDeleted, singleTableRule } from '../retention/retention-job';

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

export const idempotencyKeysRetention = singleTableRule('idempotency_keys', deleteExpiredIdempotencyKeys);
