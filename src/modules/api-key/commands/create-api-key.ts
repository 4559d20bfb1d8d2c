import type { EntityManager } from '@mikro-orm/postgresql';
import type { Permission } from '../../../platform/auth/permissions';
import { findOrganization } from '../../organization/organization.repository';
import { KeyEnvironment, type ApiKeyEntity } from '../api-key.entity';
import { displayPrefix, generateApiKey, hashApiKey } from '../api-key.format';
import { newKeyErrors, parseEnvironment } from '../api-key.policy';
import { addKey } from '../api-key.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit, type AuditSummary } from '../../../platform/audit/audit-log';

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
export async function createApiKey(scope: UnitOfWorkScope, organizationId: string, input: CreateApiKeyInput): Promise<{ entity: ApiKeyEntity; key: string }> {
  const { em } = scope;
  const name = input.name.trim();
  assertValidInput(newKeyErrors({ ...input, name }, Date.now()));
  await findOrganization(em, organizationId);

  // The key is part of the unit's result: a retry after a crash gets the one that committed.
  return inUnitOfWork(scope, async (tx, unit) => {
    const made = newKeyInUnit(tx, organizationId, input);
    await recordAudit(tx, unit, {
      organizationId,
      action: 'api_key.created',
      targetId: made.entity.id,
      summary: keySummary(made.entity),
    });
    return made;
  });
}

/** The new key inside the caller's unit of work (create, rotate): the secret made here, only its hash stored. */
export function newKeyInUnit(tx: EntityManager, organizationId: string, input: CreateApiKeyInput): { entity: ApiKeyEntity; key: string } {
  const environment = input.environment === undefined ? KeyEnvironment.LIVE : parseEnvironment(input.environment)!;
  const key = generateApiKey(environment);
  const entity = addKey(tx, organizationId, {
    name: input.name.trim(),
    environment,
    prefix: displayPrefix(key),
    keyHash: hashApiKey(key),
    permissions: [...new Set(input.permissions as Permission[])],
    expiresAt: input.expiresAt ?? null,
    createdByMemberId: input.createdByMemberId ?? null,
  });
  return { entity, key };
}

/** What an audit entry says of a key: never its secret or hash, only what the key list shows. */
export function keySummary(entity: ApiKeyEntity): AuditSummary {
  return {
    name: entity.name,
    prefix: entity.prefix,
    environment: entity.environment,
    permissions: [...entity.permissions],
    expiresAt: entity.expiresAt?.toISOString() ?? null,
  };
}
