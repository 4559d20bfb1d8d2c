import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldError } from '../../errors/app-error';
import { isPermission, PERMISSIONS, type Permission } from '../../auth/permissions';
import { OrganizationEntity } from '../organization/organization.entity';
import { ApiKeyEntity, KeyEnvironment } from './api-key.entity';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.format';

export interface CreateApiKeyInput {
  organizationId: string;
  name: string;
  permissions: readonly string[];
  environment?: KeyEnvironment;
  expiresAt?: Date | null;
}

/** Everything about a key except its secret (which exists only in the response to create). */
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

export class ApiKeyService {
  constructor(private readonly em: EntityManager) {}

  /** Creates a key; the returned `key` is the only time the secret exists outside the caller's hands. */
  async create(input: CreateApiKeyInput): Promise<{ entity: ApiKeyEntity; key: string }> {
    const errors: FieldError[] = [];
    const name = input.name.trim();
    if (name === '' || name.length > 200) errors.push({ field: 'name', message: 'name must be 1 to 200 characters' });
    const unknown = input.permissions.filter((permission) => !isPermission(permission));
    if (unknown.length > 0) {
      errors.push({
        field: 'permissions',
        message: `unknown permission ${unknown.map((p) => `"${p}"`).join(', ')}; valid: ${PERMISSIONS.join(', ')}`,
      });
    }
    if (input.permissions.length === 0) errors.push({ field: 'permissions', message: 'give at least one permission' });
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      errors.push({ field: 'expiresAt', message: 'expiresAt must be in the future' });
    }
    if (errors.length > 0) throw AppError.validation(errors);

    const organization = await this.em.findOne(OrganizationEntity, { id: input.organizationId });
    if (!organization) throw new AppError('NOT_FOUND', `No organization with id "${input.organizationId}"`);

    const environment = input.environment ?? KeyEnvironment.LIVE;
    const key = generateApiKey(environment);
    const permissions = [...new Set(input.permissions as Permission[])];
    const entity = this.em.create(ApiKeyEntity, {
      organization,
      name,
      environment,
      prefix: displayPrefix(key),
      keyHash: hashApiKey(key),
      permissions,
      expiresAt: input.expiresAt ?? null,
    });
    await this.em.flush();
    return { entity, key };
  }
}
