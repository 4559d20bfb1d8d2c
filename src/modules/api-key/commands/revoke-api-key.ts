import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEntity } from '../api-key.entity';
import { needsRevocation } from '../api-key.policy';
import { lockKey } from '../api-key.repository';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/**
 * `key revoke` and Mutation.revokeApiKey (D9): the key locked, then revoked; every instance refuses it
 * within a second (the database trigger on api_keys). Revoking a revoked key changes nothing.
 */
export async function revokeApiKey(em: EntityManager, organizationId: string, keyId: string): Promise<ApiKeyEntity> {
  return inUnitOfWork(em, async (tx) => {
    const key = await lockKey(tx, organizationId, keyId);
    if (needsRevocation(key)) {
      key.revokedAt = new Date();
      await tx.flush();
    }
    return key;
  });
}
