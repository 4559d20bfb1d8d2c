import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { OrganizationEntity, type OrganizationPlan } from './organization.entity';

/*
 * The only place that reaches the organizations table through the ORM. An organization is its own
 * scope: its id comes first, and an unknown one is NOT_FOUND.
 */

/** The organization, or NOT_FOUND. */
export async function findOrganization(em: EntityManager, organizationId: string): Promise<OrganizationEntity> {
  const organization = await em.findOne(OrganizationEntity, { id: organizationId });
  if (!organization) throw AppError.organizationNotFound(organizationId);
  return organization;
}

/**
 * The organization locked for the rest of the transaction (SELECT … FOR UPDATE), or NOT_FOUND. Settings
 * changes and member role changes take it, so two concurrent changes never both pass a rule on the whole.
 */
export async function lockOrganization(em: EntityManager, organizationId: string): Promise<OrganizationEntity> {
  const organization = await em.findOne(OrganizationEntity, { id: organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!organization) throw AppError.organizationNotFound(organizationId);
  return organization;
}

/** Every organization, newest first (the operator's list). */
export async function listOrganizations(em: EntityManager): Promise<OrganizationEntity[]> {
  return em.find(OrganizationEntity, {}, { orderBy: { createdAt: 'desc', id: 'asc' } });
}

export function addOrganization(
  em: EntityManager,
  fields: { name: string; timezone: string; plan: OrganizationPlan; rateLimitPerMinute: number | null },
): OrganizationEntity {
  return em.create(OrganizationEntity, fields);
}

/** How many organizations there are, and the oldest of them (the development tenant's check). */
export async function oldestOrganization(em: EntityManager): Promise<{ count: number; oldest: OrganizationEntity | undefined }> {
  const count = await em.count(OrganizationEntity, {});
  if (count === 0) return { count, oldest: undefined };
  const [oldest] = await em.find(OrganizationEntity, {}, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: 1 });
  return { count, oldest };
}
