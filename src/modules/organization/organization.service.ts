import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldError } from '../../errors/app-error';
import { isIanaTimeZone } from '../../validation/rules';
import { canonicalTimeZone } from '../event/event.queries';
import { OrganizationEntity, OrganizationPlan } from './organization.entity';

export interface CreateOrganizationInput {
  name: string;
  timezone?: string;
  plan?: OrganizationPlan;
  rateLimitPerMinute?: number | null;
}

export function organizationView(organization: OrganizationEntity) {
  return {
    id: organization.id,
    name: organization.name,
    timezone: organization.timezone,
    plan: organization.plan,
    allowedIPs: organization.allowedIps,
    restrictionMode: organization.restrictionMode,
    rateLimitPerMinute: organization.rateLimitPerMinute,
    createdAt: organization.createdAt.toISOString(),
    updatedAt: organization.updatedAt.toISOString(),
  };
}

export class OrganizationService {
  constructor(private readonly em: EntityManager) {}

  async create(input: CreateOrganizationInput): Promise<OrganizationEntity> {
    const errors: FieldError[] = [];
    const name = input.name.trim();
    if (name === '' || name.length > 200) errors.push({ field: 'name', message: 'name must be 1 to 200 characters' });
    if (input.timezone !== undefined && !isIanaTimeZone(input.timezone)) {
      errors.push({ field: 'timezone', message: 'timezone must be an IANA time zone name such as Europe/Paris' });
    }
    if (input.rateLimitPerMinute != null && !(Number.isInteger(input.rateLimitPerMinute) && input.rateLimitPerMinute >= 1)) {
      errors.push({ field: 'rateLimitPerMinute', message: 'rate limit must be a whole number of at least 1' });
    }
    if (errors.length > 0) throw AppError.validation(errors);
    const organization = this.em.create(OrganizationEntity, {
      name,
      timezone: canonicalTimeZone(input.timezone ?? 'UTC'),
      plan: input.plan ?? OrganizationPlan.STANDARD,
      rateLimitPerMinute: input.rateLimitPerMinute ?? null,
    });
    await this.em.flush();
    return organization;
  }

  async get(id: string): Promise<OrganizationEntity> {
    const organization = await this.em.findOne(OrganizationEntity, { id });
    if (!organization) throw new AppError('NOT_FOUND', `No organization with id "${id}"`, { id });
    return organization;
  }
}
