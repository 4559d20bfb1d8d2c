import type { EntityManager } from '@mikro-orm/postgresql';
import { canonicalTimeZone } from '../../event/event.queries';
import { OrganizationPlan, type OrganizationEntity } from '../organization.entity';
import { organizationNameErrors, rateLimitErrors, timezoneErrors } from '../organization.policy';
import { addOrganization } from '../organization.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';

export interface CreateOrganizationInput {
  name: string;
  timezone?: string;
  plan?: OrganizationPlan;
  rateLimitPerMinute?: number | null;
}

/** `org create` (D14): a name, a default timezone for its events (UTC), a plan and an optional budget (D12). */
export async function createOrganization(em: EntityManager, input: CreateOrganizationInput): Promise<OrganizationEntity> {
  const name = input.name.trim();
  assertValidInput(organizationNameErrors(name), timezoneErrors(input.timezone), rateLimitErrors(input.rateLimitPerMinute));
  const organization = addOrganization(em, {
    name,
    timezone: canonicalTimeZone(input.timezone ?? 'UTC'),
    plan: input.plan ?? OrganizationPlan.STANDARD,
    rateLimitPerMinute: input.rateLimitPerMinute ?? null,
  });
  await em.flush();
  return organization;
}
