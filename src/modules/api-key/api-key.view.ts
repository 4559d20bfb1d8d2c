import type { ApiKeyEntity } from './api-key.entity';

/** Everything about a key except its secret (which exists only in the response to create), as the admin CLI prints it. */
export function apiKeyView(key: ApiKeyEntity) {
  return {
    id: key.id,
    organizationId: key.organization.id,
    name: key.name,
    environment: key.environment,
    prefix: key.prefix,
    permissions: key.permissions,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}
