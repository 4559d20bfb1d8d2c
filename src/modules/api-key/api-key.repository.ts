import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { OrganizationEntity } from '../organization/organization.entity';
import { ApiKeyEntity, type KeyEnvironment } from './api-key.entity';

/*
 * The only place that reaches the api_keys table through the ORM, for management (create, list,
 * revoke, rotate). The organization is always the first argument after the entity manager: another
 * organization's key answers as a missing one. Authenticating a request with a key is a hot read of
 * its own: src/modules/api-key/api-key-authenticator.ts.
 */

/** The key (never its secret: only the hash is stored), or NOT_FOUND. */
export async function findKey(em: EntityManager, organizationId: string, keyId: string): Promise<ApiKeyEntity> {
  const key = await em.findOne(ApiKeyEntity, { id: keyId, organization: organizationId });
  if (!key) throw AppError.apiKeyNotFound(keyId);
  return key;
}

/** The key with its organization loaded (Query.viewer), or null when it is gone. */
export async function findKeyWithOrganization(em: EntityManager, organizationId: string, keyId: string): Promise<ApiKeyEntity | null> {
  return em.findOne(ApiKeyEntity, { id: keyId, organization: organizationId }, { populate: ['organization'] });
}

/** The operator names a key of any organization (admin CLI): the organization it belongs to, or NOT_FOUND. */
export async function organizationOfKey(em: EntityManager, keyId: string): Promise<string> {
  const key = await em.findOne(ApiKeyEntity, { id: keyId });
  if (!key) throw AppError.apiKeyNotFound(keyId);
  return key.organization.id;
}

/** The key locked for the rest of the transaction (SELECT … FOR UPDATE), or NOT_FOUND. */
export async function lockKey(em: EntityManager, organizationId: string, keyId: string): Promise<ApiKeyEntity> {
  const key = await em.findOne(ApiKeyEntity, { id: keyId, organization: organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!key) throw AppError.apiKeyNotFound(keyId);
  return key;
}

/** The organization's keys, newest first. */
export async function keysOfOrganization(em: EntityManager, organizationId: string): Promise<ApiKeyEntity[]> {
  return em.find(ApiKeyEntity, { organization: organizationId }, { orderBy: { createdAt: 'desc', id: 'asc' } });
}

/** How many of the organization's keys are usable: neither revoked nor expired. */
export async function countActiveKeys(em: EntityManager, organizationId: string, now: Date): Promise<number> {
  return em.count(ApiKeyEntity, { organization: organizationId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] });
}

export interface NewApiKey {
  name: string;
  environment: KeyEnvironment;
  prefix: string;
  keyHash: string;
  permissions: string[];
  expiresAt: Date | null;
  createdByMemberId: string | null;
}

/** Adds a key to the unit of work. */
export function addKey(em: EntityManager, organizationId: string, fields: NewApiKey): ApiKeyEntity {
  return em.create(ApiKeyEntity, { organization: em.getReference(OrganizationEntity, organizationId), ...fields });
}
