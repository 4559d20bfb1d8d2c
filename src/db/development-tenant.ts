import type { MikroORM } from '@mikro-orm/postgresql';
import { PERMISSIONS } from '../auth/permissions';
import { KeyEnvironment } from '../modules/api-key/api-key.entity';
import { ApiKeyService } from '../modules/api-key/api-key.service';
import { OrganizationEntity } from '../modules/organization/organization.entity';
import { OrganizationService } from '../modules/organization/organization.service';

export type DevelopmentTenant =
  | { created: true; organizationId: string; key: string }
  | { created: false; organizationId: string | undefined; organizations: number };

/**
 * On an empty embedded database: a development organization and a test key with every permission, so
 * `npm start` is enough to try the API. A database that has organizations is left alone.
 */
export async function ensureDevelopmentTenant(orm: MikroORM): Promise<DevelopmentTenant> {
  const em = orm.em.fork();
  const organizations = await em.count(OrganizationEntity, {});
  if (organizations > 0) {
    const [first] = await em.find(OrganizationEntity, {}, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: 1 });
    return { created: false, organizationId: first?.id, organizations };
  }
  const organization = await new OrganizationService(em).create({ name: 'Development' });
  const { key } = await new ApiKeyService(orm.em.fork()).create({
    organizationId: organization.id,
    name: 'development test key',
    permissions: [...PERMISSIONS],
    environment: KeyEnvironment.TEST,
  });
  return { created: true, organizationId: organization.id, key };
}
