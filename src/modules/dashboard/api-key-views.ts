import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEntity } from '../api-key/api-key.entity';
import { effectivePermissions, keyStatus } from '../api-key/api-key.policy';
import { membersByIds } from '../member/member.repository';
import type { ApiKeyView } from './dashboard.types';

/**
 * Keys as the dashboard shows them (D19): with their creator (one statement for all of them), what
 * they can do now (api-key.policy.ts `effectivePermissions`) and their status.
 */
export async function apiKeyViews(em: EntityManager, organizationId: string, keys: readonly ApiKeyEntity[]): Promise<ApiKeyView[]> {
  const creatorIds = [...new Set(keys.map((key) => key.createdByMemberId).filter((id): id is string => id !== null))];
  const byId = new Map((await membersByIds(em, organizationId, creatorIds)).map((member) => [member.id, member]));
  const now = Date.now();
  return keys.map((key) => {
    const creator = key.createdByMemberId === null ? undefined : (byId.get(key.createdByMemberId) ?? null);
    return {
      id: key.id,
      name: key.name,
      environment: key.environment,
      prefix: key.prefix,
      permissions: [...key.permissions],
      effectivePermissions: effectivePermissions(key.permissions, creator),
      createdBy: creator ?? null,
      createdInDashboard: key.createdByMemberId !== null,
      status: keyStatus(key, now),
      createdAt: key.createdAt,
      expiresAt: key.expiresAt,
      lastUsedAt: key.lastUsedAt,
      revokedAt: key.revokedAt,
    };
  });
}
