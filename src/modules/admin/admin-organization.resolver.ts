import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../graphql/request-context';
import { RequiresSession } from '../../graphql/requires-session';
import { AppError } from '../../errors/app-error';
import { MemberEntity } from '../member/member.entity';
import type { OrganizationEntity } from '../organization/organization.entity';
import { RestrictionMode } from '../organization/organization.entity';
import { OrganizationService } from '../organization/organization.service';
import { OrganizationView, UpdateOrganizationSettingsInput, UsageReport, Viewer } from './admin.types';
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

/** Who is signed in, the organization's settings and its usage: the dashboard's read-only pages and settings form. */
@Resolver()
export class AdminOrganizationResolver {
  @Query(() => Viewer, { description: 'The signed-in member, their organization and what the session may do.' })
  @RequiresSession('MEMBER')
  async viewer(@Ctx() context: RequestContext): Promise<Viewer> {
    const member = await context.em.findOneOrFail(MemberEntity, { id: context.auth.session!.memberId });
    const organization = await new OrganizationService(context.em).get(context.auth.organization.id);
    return { member, organization: organizationView(organization), permissions: [...context.auth.permissions] };
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
