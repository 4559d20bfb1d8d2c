import type { EntityManager } from '@mikro-orm/postgresql';
import type { Permission } from '../../../platform/auth/permissions';
import { findOrganization } from '../../organization/organization.repository';
import { KeyEnvironment, type ApiKeyEntity } from '../api-key.entity';
import { displayPrefix, generateApiKey, hashApiKey } from '../api-key.format';
import { newKeyErrors, parseEnvironment } from '../api-key.policy';
import { addKey } from '../api-key.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';

export interface CreateApiKeyInput {
  name: string;
  permissions: readonly string[];
  /** live or test; live when absent. */
  environment?: KeyEnvironment | string;
  expiresAt?: Date | null;
  /** The dashboard member making the key (D19: it inherits that member's permissions); none from the CLI. */
  createdByMemberId?: string | null;
}

/**
 * `key create` and Mutation.createApiKey (D9): fields checked at once, the organization found, then a
 * new key. The returned `key` is the only time the secret exists outside the caller's hands: only
 * its SHA-256 and a display prefix are stored.
 */
export async function createApiKey(em: EntityManager, organizationId: string, input: CreateApiKeyInput): Promise<{ entity: ApiKeyEntity; key: string }> {
  const name = input.name.trim();
  assertValidInput(newKeyErrors({ ...input, name }, Date.now()));
  await findOrganization(em, organizationId);

  const environment = input.environment === undefined ? KeyEnvironment.LIVE : parseEnvironment(input.environment)!;
  const key = generateApiKey(environment);
  const entity = addKey(em, organizationId, {
    name,
    environment,
    prefix: displayPrefix(key),
    keyHash: hashApiKey(key),
    permissions: [...new Set(input.permissions as Permission[])],
    expiresAt: input.expiresAt ?? null,
    createdByMemberId: input.createdByMemberId ?? null,
  });
  await em.flush();
  return { entity, key };
}
