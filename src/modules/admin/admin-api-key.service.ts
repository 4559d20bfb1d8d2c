import type { EntityManager } from '@mikro-orm/postgresql';
import { permissionsOfRole } from '../../auth/permissions';
import { AppError } from '../../errors/app-error';
import { ApiKeyEntity, KeyEnvironment } from '../api-key/api-key.entity';
import { ApiKeyService } from '../api-key/api-key.service';
import { MemberEntity } from '../member/member.entity';
import type { ApiKeyView, CreateApiKeyInput } from './admin.types';

const keyNotFound = (id: string) => new AppError('NOT_FOUND', `No API key with id "${id}"`, { id });

/** The dashboard's key management, always within the signed-in member's organization. */
export class AdminApiKeyService {
  constructor(
    private readonly em: EntityManager,
    private readonly organizationId: string,
  ) {}

  async list(): Promise<ApiKeyView[]> {
    const keys = await new ApiKeyService(this.em).list(this.organizationId);
    return this.views(keys);
  }

  async create(input: CreateApiKeyInput, creatorId: string): Promise<{ apiKey: ApiKeyView; key: string }> {
    const environment = Object.values(KeyEnvironment).find((value) => String(value) === input.environment);
    if (environment === undefined) throw AppError.validation([{ field: 'environment', message: 'environment must be live or test' }]);
    const { entity, key } = await new ApiKeyService(this.em).create({
      organizationId: this.organizationId,
      name: input.name,
      permissions: input.permissions,
      environment,
      expiresAt: input.expiresAt ?? null,
      createdByMemberId: creatorId,
    });
    const [apiKey] = await this.views([entity]);
    return { apiKey, key };
  }

  async revoke(id: string): Promise<ApiKeyView> {
    await this.assertOwn(id);
    const [view] = await this.views([await new ApiKeyService(this.em).revoke(id)]);
    return view;
  }

  async rotate(id: string, graceHours: number): Promise<{ apiKey: ApiKeyView; key: string; previous: ApiKeyView }> {
    await this.assertOwn(id);
    const { previous, entity, key } = await new ApiKeyService(this.em).rotate(id, graceHours);
    const [apiKey, previousView] = await this.views([entity, previous]);
    return { apiKey, key, previous: previousView };
  }

  /** Another organization's key answers exactly as a missing one. */
  private async assertOwn(id: string): Promise<void> {
    if ((await this.em.count(ApiKeyEntity, { id, organization: this.organizationId })) === 0) throw keyNotFound(id);
  }

  private async views(keys: ApiKeyEntity[]): Promise<ApiKeyView[]> {
    const creatorIds = [...new Set(keys.map((key) => key.createdByMemberId).filter((id): id is string => id !== null))];
    const creators = creatorIds.length === 0 ? [] : await this.em.find(MemberEntity, { id: { $in: creatorIds }, organization: this.organizationId });
    const byId = new Map(creators.map((member) => [member.id, member]));
    const now = Date.now();
    return keys.map((key) => {
      const creator = key.createdByMemberId === null ? null : (byId.get(key.createdByMemberId) ?? null);
      const held = key.createdByMemberId === null ? undefined : creator === null ? [] : permissionsOfRole(creator.role);
      const status = key.revokedAt !== null ? 'REVOKED' : key.expiresAt !== null && key.expiresAt.getTime() <= now ? 'EXPIRED' : 'ACTIVE';
      return {
        id: key.id,
        name: key.name,
        environment: key.environment,
        prefix: key.prefix,
        permissions: [...key.permissions],
        effectivePermissions: key.permissions.filter((permission) => held?.includes(permission as never) ?? true),
        createdBy: creator,
        createdInDashboard: key.createdByMemberId !== null,
        status,
        createdAt: key.createdAt,
        expiresAt: key.expiresAt,
        lastUsedAt: key.lastUsedAt,
        revokedAt: key.revokedAt,
      };
    });
  }
}
