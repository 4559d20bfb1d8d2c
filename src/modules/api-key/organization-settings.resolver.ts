import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { updateOrganization } from '../organization/commands/update-organization';
import { organizationOf } from './viewer.resolver';
import { UpdateOrganizationInput, ViewerOrganization } from './viewer.types';

/**
 * The organization's booking windows for API keys (D20, D21, D29): `updateOrganization` with the permission
 * `organization:write` (an ADMIN session holds it too). Read back with `viewer { organization { … } }`.
 * Only these settings: the access settings (allowlist, restriction mode, plan, rate limit) stay with
 * dashboard admins and the admin CLI, so that a key can never widen what guards it (D11, D12; see D20).
 */
@Resolver()
export class OrganizationSettingsResolver {
  @Mutation(() => ViewerOrganization, {
    description:
      "Changes the caller's organization's holdMinutes and waitlistOfferMinutes (each 1 to 1440) and transferLockMinutes (0 to 10080); absent fields stay as they are.",
  })
  @RequiresPermission('organization:write')
  async updateOrganization(
    @Ctx() { scope, auth }: RequestContext,
    @Arg('input', () => UpdateOrganizationInput) input: UpdateOrganizationInput,
  ): Promise<ViewerOrganization> {
    const organization = await updateOrganization(scope, auth.organization.id, {
      holdMinutes: input.holdMinutes ?? undefined,
      waitlistOfferMinutes: input.waitlistOfferMinutes ?? undefined,
      transferLockMinutes: input.transferLockMinutes ?? undefined,
    });
    return organizationOf(organization);
  }
}
