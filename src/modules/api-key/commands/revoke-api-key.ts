import type { ApiKeyEntity } from '../api-key.entity';
import { needsRevocation } from '../api-key.policy';
import { lockKey } from '../api-key.repository';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';

/**
 * `key revoke` and Mutation.revokeApiKey (D9): the key locked, then revoked; every instance refuses it
 * within a second (the database trigger on api_keys). Revoking a revoked key changes nothing.
 */
export async function revokeApiKey(scope: UnitOfWorkScope, organizationId: string, keyId: string): Promise<ApiKeyEntity> {
  return inUnitOfWork(scope, async (tx, unit) => {
    const key = await lockKey(tx, organizationId, keyId);
    if (needsRevocation(key)) {
      key.revokedAt = new Date();
      await recordAudit(tx, unit, { organizationId, action: 'api_key.revoked', targetId: key.id, summary: { name: key.name, prefix: key.prefix } });
      await tx.flush();
    }
    return key;
  });
}
