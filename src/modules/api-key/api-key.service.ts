import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEntity } from './api-key.entity';
import { createApiKey, type CreateApiKeyInput as CommandInput } from './commands/create-api-key';
import { revokeApiKey } from './commands/revoke-api-key';
import { rotateApiKey } from './commands/rotate-api-key';
import { findKey, keysOfOrganization, organizationOfKey } from './api-key.repository';
import { findOrganization } from '../organization/organization.repository';

export { ROTATION_GRACE_HOURS } from './api-key.constants';
export { apiKeyView } from './api-key.view';

export interface CreateApiKeyInput extends CommandInput {
  organizationId: string;
}

/**
 * The key commands as the operator calls them, by id across organizations, for callers outside src/
 * (test helpers). Code in src/ calls src/modules/api-key/commands/*.ts with the organization first.
 */
export class ApiKeyService {
  constructor(private readonly em: EntityManager) {}

  create({ organizationId, ...input }: CreateApiKeyInput): Promise<{ entity: ApiKeyEntity; key: string }> {
    return createApiKey(this.em, organizationId, input);
  }

  async get(apiKeyId: string): Promise<ApiKeyEntity> {
    return findKey(this.em, await organizationOfKey(this.em, apiKeyId), apiKeyId);
  }

  async list(organizationId: string): Promise<ApiKeyEntity[]> {
    await findOrganization(this.em, organizationId);
    return keysOfOrganization(this.em, organizationId);
  }

  async revoke(apiKeyId: string): Promise<ApiKeyEntity> {
    return revokeApiKey(this.em, await organizationOfKey(this.em, apiKeyId), apiKeyId);
  }

  async rotate(apiKeyId: string, graceHours?: number): Promise<{ previous: ApiKeyEntity; entity: ApiKeyEntity; key: string }> {
    return rotateApiKey(this.em, await organizationOfKey(this.em, apiKeyId), apiKeyId, graceHours);
  }
}
