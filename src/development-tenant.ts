import type { MikroORM } from '@mikro-orm/postgresql';
import { PERMISSIONS } from './platform/auth/permissions';
import { systemScope } from './platform/db/unit-of-work-scope';
import { KeyEnvironment } from './modules/api-key/api-key.entity';
import { createApiKey } from './modules/api-key/commands/create-api-key';
import { createOrganization } from './modules/organization/commands/create-organization';
import { oldestOrganization } from './modules/organization/organization.repository';

export type DevelopmentTenant =
  | { created: true; organizationId: string; key: string }
  | { created: false; organizationId: string | undefined; organizations: number };

/**
 * On an empty embedded database: a development organization and a test key with every permission, so
 * `npm start` is enough to try the API. A database that has organizations is left alone.
 */
export async function ensureDevelopmentTenant(orm: MikroORM): Promise<DevelopmentTenant> {
  const em = orm.em.fork();
  const { count, oldest } = await oldestOrganization(em);
  if (count > 0) return { created: false, organizationId: oldest?.id, organizations: count };
  const organization = await createOrganization(systemScope(em), { name: 'Development' });
  const { key } = await createApiKey(systemScope(orm.em.fork()), organization.id, {
    name: 'development test key',
    permissions: [...PERMISSIONS],
    environment: KeyEnvironment.TEST,
  });
  return { created: true, organizationId: organization.id, key };
}
