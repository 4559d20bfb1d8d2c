import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
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

/** How long a rotated key keeps working next to its replacement, so clients can be redeployed. */
export const ROTATION_GRACE_HOURS = 24;
const MAX_GRACE_HOURS = 30 * 24;
const HOUR = 3_600_000;

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
    if (!organization) throw AppError.notFound(`No organization with id "${input.organizationId}"`);

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

  /** An organization's keys, newest first (never a secret: only the hash is stored). */
  async list(organizationId: string): Promise<ApiKeyEntity[]> {
    const organization = await this.em.findOne(OrganizationEntity, { id: organizationId });
    if (!organization) throw AppError.notFound(`No organization with id "${organizationId}"`, organizationId);
    return this.em.find(ApiKeyEntity, { organization }, { orderBy: { createdAt: 'desc', id: 'asc' } });
  }

  /** Revokes a key at once on every instance; revoking a revoked key changes nothing. */
  async revoke(apiKeyId: string): Promise<ApiKeyEntity> {
    return this.em.transactional(async (em) => {
      const key = await this.lockedKey(em, apiKeyId);
      if (key.revokedAt === null) {
        key.revokedAt = new Date();
        await em.flush();
      }
      return key;
    });
  }

  /**
   * Issues a replacement with the same name, permissions and environment (and, if the old key had a
   * lifetime, the same lifetime from now). The old key keeps working for `graceHours`, then expires.
   */
  async rotate(apiKeyId: string, graceHours = ROTATION_GRACE_HOURS): Promise<{ previous: ApiKeyEntity; entity: ApiKeyEntity; key: string }> {
    if (!(Number.isInteger(graceHours) && graceHours >= 0 && graceHours <= MAX_GRACE_HOURS)) {
      throw AppError.validation([{ field: 'graceHours', message: `the grace period must be 0 to ${MAX_GRACE_HOURS} hours` }]);
    }
    return this.em.transactional(async (em) => {
      const previous = await this.lockedKey(em, apiKeyId);
      const now = Date.now();
      if (previous.revokedAt !== null) throw AppError.validation([{ field: 'keyId', message: 'the key is revoked; create a new one instead' }]);
      if (previous.expiresAt !== null && previous.expiresAt.getTime() <= now) {
        throw AppError.validation([{ field: 'keyId', message: 'the key has expired; create a new one instead' }]);
      }
      const lifetime = previous.expiresAt === null ? null : previous.expiresAt.getTime() - previous.createdAt.getTime();
      const { entity, key } = await new ApiKeyService(em).create({
        organizationId: previous.organization.id,
        name: previous.name,
        permissions: previous.permissions,
        environment: previous.environment,
        expiresAt: lifetime === null ? null : new Date(now + lifetime),
      });
      const graceEnd = new Date(now + graceHours * HOUR);
      if (previous.expiresAt === null || previous.expiresAt > graceEnd) previous.expiresAt = graceEnd;
      await em.flush();
      return { previous, entity, key };
    });
  }

  private async lockedKey(em: EntityManager, apiKeyId: string): Promise<ApiKeyEntity> {
    const key = await em.findOne(ApiKeyEntity, { id: apiKeyId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!key) throw AppError.notFound(`No API key with id "${apiKeyId}"`, apiKeyId);
    return key;
  }
}
