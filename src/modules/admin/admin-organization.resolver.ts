import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../graphql/request-context';
import { RequiresSession } from '../../graphql/requires-session';
import { AppError } from '../../errors/app-error';
import type { OrganizationEntity } from '../organization/organization.entity';
import { RestrictionMode } from '../organization/organization.entity';
import { OrganizationService } from '../organization/organization.service';
import { OrganizationView, UpdateOrganizationSettingsInput, UsageReport } from './admin.types';
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
  };
}

/** The organization's settings and its usage: the dashboard's settings form and usage page. */
@Resolver()
export class AdminOrganizationResolver {
  @Query(() => OrganizationView, { description: "The signed-in member's organization with its settings (who is signed in: Query.viewer)." })
  @RequiresSession('MEMBER')
  async organization(@Ctx() context: RequestContext): Promise<OrganizationView> {
    return organizationView(await new OrganizationService(context.em).get(context.auth.organization.id));
  }

  @Mutation(() => OrganizationView, { description: 'Timezone for every plan; IP allowlist and restriction mode for ENTERPRISE (D11).' })
  @RequiresSession('ADMIN')
  async updateOrganizationSettings(
    @Ctx() context: RequestContext,
    @Arg('input', () => UpdateOrganizationSettingsInput) input: UpdateOrganizationSettingsInput,
  ): Promise<OrganizationView> {
    const mode = input.restrictionMode ?? undefined;
    const restrictionMode = mode === undefined ? undefined : Object.values(RestrictionMode).find((value) => String(value) === mode);
    if (mode !== undefined && restrictionMode === undefined) {
      throw AppError.validation([{ field: 'restrictionMode', message: 'restrictionMode must be STRICT or OFF' }]);
    }
    const organization = await new OrganizationService(context.em).update(context.auth.organization.id, {
      timezone: input.timezone ?? undefined,
      allowedIps: input.allowedIPs ?? undefined,
      restrictionMode,
    });
    return organizationView(organization);
  }

  @Query(() => UsageReport, { description: 'Requests a day per key and rate-limited requests over the last 14 days.' })
  @RequiresSession('MEMBER')
  usage(@Ctx() context: RequestContext): Promise<UsageReport> {
    return usageReport(context.em, context.auth.organization.id);
  }
}
