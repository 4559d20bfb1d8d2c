import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresSession } from '../../platform/graphql/requires-session';
import { updateOrganization } from '../organization/commands/update-organization';
import type { OrganizationEntity } from '../organization/organization.entity';
import { findOrganization } from '../organization/organization.repository';
import { OrganizationView, UpdateOrganizationSettingsInput, UsageReport } from './dashboard.types';
import { usageReport } from './usage.repository';

function organizationView(organization: OrganizationEntity): OrganizationView {
  return {
    id: organization.id,
    name: organization.name,
    plan: organization.plan,
    timezone: organization.timezone,
    allowedIPs: [...organization.allowedIps],
    restrictionMode: organization.restrictionMode,
    rateLimitPerMinute: organization.rateLimitPerMinute,
    holdMinutes: organization.holdMinutes,
    waitlistOfferMinutes: organization.waitlistOfferMinutes,
    transferLockMinutes: organization.transferLockMinutes,
  };
}

/** The organization's settings and its usage: the dashboard's settings form and usage page. */
@Resolver()
export class AdminOrganizationResolver {
  @Query(() => OrganizationView, { description: "The signed-in member's organization with its settings (who is signed in: Query.viewer)." })
  @RequiresSession('MEMBER')
  async organization(@Ctx() { em, auth }: RequestContext): Promise<OrganizationView> {
    return organizationView(await findOrganization(em, auth.organization.id));
  }

  @Mutation(() => OrganizationView, {
    description:
      'Timezone and the booking windows (holdMinutes, waitlistOfferMinutes, transferLockMinutes) for every plan; IP allowlist and restriction mode for ENTERPRISE (D11).',
  })
  @RequiresSession('ADMIN')
  async updateOrganizationSettings(
    @Ctx() { scope, auth }: RequestContext,
    @Arg('input', () => UpdateOrganizationSettingsInput) input: UpdateOrganizationSettingsInput,
  ): Promise<OrganizationView> {
    const organization = await updateOrganization(scope, auth.organization.id, {
      timezone: input.timezone ?? undefined,
      allowedIps: input.allowedIPs ?? undefined,
      restrictionMode: input.restrictionMode ?? undefined,
      holdMinutes: input.holdMinutes ?? undefined,
      waitlistOfferMinutes: input.waitlistOfferMinutes ?? undefined,
      transferLockMinutes: input.transferLockMinutes ?? undefined,
    });
    return organizationView(organization);
  }

  @Query(() => UsageReport, { description: 'Requests a day per key and rate-limited requests over the last 14 days.' })
  @RequiresSession('MEMBER')
  usage(@Ctx() context: RequestContext): Promise<UsageReport> {
    return usageReport(context.em, context.auth.organization.id);
  }
}
