import type { OrganizationEntity } from './organization.entity';

/** An organization as the admin CLI prints it. */
export function organizationView(organization: OrganizationEntity) {
  return {
    id: organization.id,
    name: organization.name,
    timezone: organization.timezone,
    plan: organization.plan,
    allowedIPs: organization.allowedIps,
    restrictionMode: organization.restrictionMode,
    rateLimitPerMinute: organization.rateLimitPerMinute,
    holdMinutes: organization.holdMinutes,
    waitlistOfferMinutes: organization.waitlistOfferMinutes,
    transferLockMinutes: organization.transferLockMinutes,
    createdAt: organization.createdAt.toISOString(),
    updatedAt: organization.updatedAt.toISOString(),
  };
}
