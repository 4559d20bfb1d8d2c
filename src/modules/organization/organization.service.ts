import type { EntityManager } from '@mikro-orm/postgresql';
import { createOrganization, type CreateOrganizationInput } from './commands/create-organization';
import { updateOrganization, type UpdateOrganizationInput } from './commands/update-organization';
import type { OrganizationEntity } from './organization.entity';
import { findOrganization, listOrganizations } from './organization.repository';

export type { CreateOrganizationInput, UpdateOrganizationInput };
export { MAX_RATE_LIMIT_PER_MINUTE } from './organization.policy';
export { organizationView } from './organization.view';

/**
 * The organization commands under their former names, for callers outside src/ (test helpers). Code
 * in src/ calls src/modules/organization/commands/*.ts and organization.repository.ts directly.
 */
export class OrganizationService {
  constructor(private readonly em: EntityManager) {}

  create(input: CreateOrganizationInput): Promise<OrganizationEntity> {
    return createOrganization(this.em, input);
  }

  list(): Promise<OrganizationEntity[]> {
    return listOrganizations(this.em);
  }

  get(id: string): Promise<OrganizationEntity> {
    return findOrganization(this.em, id);
  }

  update(id: string, input: UpdateOrganizationInput): Promise<OrganizationEntity> {
    return updateOrganization(this.em, id, input);
  }
}
