import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldError } from '../../errors/app-error';
import { isIanaTimeZone } from '../../validation/rules';
import { canonicalTimeZone } from '../event/event.queries';
import { normalizeAllowlist } from './ip-allowlist';
import { OrganizationEntity, OrganizationPlan, RestrictionMode } from './organization.entity';

/** The same bound as RATE_LIMIT_PER_MINUTE (and well inside the integer column). */
export const MAX_RATE_LIMIT_PER_MINUTE = 10_000_000;
const isRateLimit = (value: number) => Number.isInteger(value) && value >= 1 && value <= MAX_RATE_LIMIT_PER_MINUTE;

export interface CreateOrganizationInput {
  name: string;
  timezone?: string;
  plan?: OrganizationPlan;
  rateLimitPerMinute?: number | null;
}

/** Fields `org update` may change; absent means unchanged, rateLimitPerMinute null means the server default. */
export interface UpdateOrganizationInput {
  timezone?: string;
  plan?: OrganizationPlan;
  rateLimitPerMinute?: number | null;
  allowedIps?: readonly string[];
  restrictionMode?: RestrictionMode;
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
    if (input.rateLimitPerMinute != null && !isRateLimit(input.rateLimitPerMinute)) {
      errors.push({ field: 'rateLimitPerMinute', message: `rate limit must be a whole number from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}` });
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
    if (!organization) throw AppError.notFound(`No organization with id "${id}"`, id);
    return organization;
  }

  /**
   * Changes settings, checking the result as a whole (D11: only ENTERPRISE organizations may have an
   * allowlist or STRICT mode), and tells every instance to drop what it cached about the organization.
   */
  async update(id: string, input: UpdateOrganizationInput): Promise<OrganizationEntity> {
    const errors: FieldError[] = [];
    if (input.timezone !== undefined && !isIanaTimeZone(input.timezone)) {
      errors.push({ field: 'timezone', message: 'timezone must be an IANA time zone name such as Europe/Paris' });
    }
    if (input.rateLimitPerMinute != null && !isRateLimit(input.rateLimitPerMinute)) {
      errors.push({ field: 'rateLimitPerMinute', message: `rate limit must be a whole number from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}` });
    }
    const allowlist = input.allowedIps === undefined ? undefined : normalizeAllowlist(input.allowedIps);
    errors.push(...(allowlist?.errors ?? []));
    if (errors.length > 0) throw AppError.validation(errors);

    return this.em.transactional(async (em) => {
      const organization = await em.findOne(OrganizationEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!organization) throw AppError.notFound(`No organization with id "${id}"`, id);
      const plan = input.plan ?? organization.plan;
      const allowedIps = allowlist?.list ?? organization.allowedIps;
      const restrictionMode = input.restrictionMode ?? organization.restrictionMode;
      if (plan !== OrganizationPlan.ENTERPRISE) {
        if (restrictionMode === RestrictionMode.STRICT) {
          errors.push({ field: 'restrictionMode', message: 'only ENTERPRISE organizations can use STRICT (set --plan enterprise)' });
        }
        if (allowedIps.length > 0) {
          errors.push({ field: 'allowedIPs', message: 'only ENTERPRISE organizations can have allowed IPs (set --plan enterprise, or clear them with --allowed-ips "")' });
        }
      }
      if (restrictionMode === RestrictionMode.STRICT && allowedIps.length === 0) {
        errors.push({ field: 'allowedIPs', message: 'STRICT needs at least one allowed address or range' });
      }
      if (errors.length > 0) throw AppError.validation(errors);

      organization.plan = plan;
      organization.allowedIps = [...allowedIps];
      organization.restrictionMode = restrictionMode;
      if (input.timezone !== undefined) organization.timezone = canonicalTimeZone(input.timezone);
      if (input.rateLimitPerMinute !== undefined) organization.rateLimitPerMinute = input.rateLimitPerMinute;
      await em.flush();
      return organization;
    });
  }
}
