import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PERMISSIONS } from '../../src/platform/auth/permissions';
import { KeyEnvironment } from '../../src/modules/api-key/api-key.entity';
import { createApiKey as createApiKeyCommand } from '../../src/modules/api-key/commands/create-api-key';
import { createOrganization as createOrganizationCommand } from '../../src/modules/organization/commands/create-organization';
import { OrganizationPlan, type OrganizationEntity } from '../../src/modules/organization/organization.entity';
import { systemScope } from '../../src/platform/db/unit-of-work-scope';

export const ALL_PERMISSIONS = [...PERMISSIONS];

/** An organization, made the way the admin CLI makes one. */
export function createOrganization(
  orm: MikroORM,
  options: { name?: string; timezone?: string; plan?: OrganizationPlan; rateLimitPerMinute?: number } = {},
): Promise<OrganizationEntity> {
  return createOrganizationCommand(systemScope(orm.em.fork()), { name: options.name ?? 'Test organization', ...options });
}

/** An API key, made the way the admin CLI makes one; returns the secret shown once. */
export async function createApiKey(
  orm: MikroORM,
  organizationId: string,
  options: { permissions?: string[]; name?: string; environment?: KeyEnvironment; expiresAt?: Date } = {},
): Promise<{ id: string; key: string }> {
  const { entity, key } = await createApiKeyCommand(systemScope(orm.em.fork()), organizationId, {
    name: options.name ?? 'test key',
    permissions: options.permissions ?? ALL_PERMISSIONS,
    environment: options.environment ?? KeyEnvironment.TEST,
    expiresAt: options.expiresAt,
  });
  return { id: entity.id, key };
}

/** An organization with a key holding every permission. */
export async function createTenant(orm: MikroORM, options: { timezone?: string; permissions?: string[] } = {}) {
  const organization = await createOrganization(orm, { timezone: options.timezone });
  const { key, id } = await createApiKey(orm, organization.id, { permissions: options.permissions });
  return { organization, key, keyId: id };
}

export function uniqueSlug(prefix = 'event'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

const DAY = 24 * 3600 * 1000;

/** A valid create body: starts in 30 days, lasts 8 hours. */
export function eventInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = new Date(Date.now() + 30 * DAY);
  start.setUTCMilliseconds(0);
  return {
    title: 'Launch party',
    slug: uniqueSlug(),
    startDate: start.toISOString(),
    endDate: new Date(start.getTime() + 8 * 3600 * 1000).toISOString(),
    ...overrides,
  };
}
