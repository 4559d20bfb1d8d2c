import { canonicalTimeZone } from '../../event/event.queries';
import { OrganizationPlan, type OrganizationEntity } from '../organization.entity';
import { organizationNameErrors, rateLimitErrors, timezoneErrors } from '../organization.policy';
import { addOrganization } from '../organization.repository';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';

export interface CreateOrganizationInput {
  name: string;
  timezone?: string;
  plan?: OrganizationPlan;
  rateLimitPerMinute?: number | null;
}

/**
 * `org create` (D14): a name, a default timezone for its events (UTC), a plan and an optional budget
 * (D12), checked at once, then the organization added in one unit of work.
 */
export async function createOrganization(scope: UnitOfWorkScope, input: CreateOrganizationInput): Promise<OrganizationEntity> {
  const name = input.name.trim();
  assertValidInput(organizationNameErrors(name), timezoneErrors(input.timezone), rateLimitErrors(input.rateLimitPerMinute));
  const fields = {
    name,
    timezone: canonicalTimeZone(input.timezone ?? 'UTC'),
    plan: input.plan ?? OrganizationPlan.STANDARD,
    rateLimitPerMinute: input.rateLimitPerMinute ?? null,
  };
  return inUnitOfWork(scope, async (tx) => addOrganization(tx, fields));
}
