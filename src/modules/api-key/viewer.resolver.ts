import { Ctx, Query, Resolver } from 'type-graphql';
import type { AuthContext, SessionPrincipal } from '../../platform/auth/auth-context';
import { AppError } from '../../foundation/errors/app-error';
import type { RequestContext } from '../../platform/graphql/request-context';
import { AnyKey } from '../../platform/graphql/requires-permission';
import { findMemberWithOrganization } from '../member/member.repository';
import type { OrganizationEntity } from '../organization/organization.entity';
import { findKeyWithOrganization } from './api-key.repository';
import { Viewer, type ViewerOrganization } from './viewer.types';

/** The caller's organization as Viewer.organization and Mutation.updateOrganization show it. */
export function organizationOf(organization: OrganizationEntity): ViewerOrganization {
  return {
    id: organization.id,
    name: organization.name,
    timezone: organization.timezone,
    plan: organization.plan,
    holdMinutes: organization.holdMinutes,
    waitlistOfferMinutes: organization.waitlistOfferMinutes,
    transferLockMinutes: organization.transferLockMinutes,
  };
}

/**
 * Who is calling, one answer for both kinds of caller: an API key (keyId, name, environment, the
 * rate-limit budget) or a signed-in dashboard member standing in for a key (D19: member, the member's
 * name, no key and no budget, since sessions do not draw from the organization's).
 */
@Resolver(() => Viewer)
export class ViewerResolver {
  @Query(() => Viewer, {
    description:
      'Who is calling: the key (or, from the dashboard, the signed-in member), the organization, permissions and rate-limit budget. Any valid key or session.',
  })
  @AnyKey()
  viewer(@Ctx() context: RequestContext): Promise<Viewer> {
    const { auth } = context;
    return auth.session ? sessionViewer(context, auth, auth.session) : keyViewer(context, auth);
  }
}

async function keyViewer(context: RequestContext, auth: AuthContext): Promise<Viewer> {
  // On the primary (D25): a key just made or revoked is the key authentication just saw.
  const key = await findKeyWithOrganization(context.primaryEm ?? context.em, auth.organization.id, auth.apiKeyId);
  // Revoked or deleted between authentication and this read: the same answer as a revoked key.
  if (!key) throw AppError.invalidApiKey();
  return {
    keyId: key.id,
    name: key.name,
    environment: key.environment,
    member: null,
    permissions: [...auth.permissions],
    organization: organizationOf(key.organization.getEntity()),
    rateLimit: context.rateLimit ?? null,
  };
}

async function sessionViewer(context: RequestContext, auth: AuthContext, session: SessionPrincipal): Promise<Viewer> {
  const member = await findMemberWithOrganization(context.primaryEm ?? context.em, auth.organization.id, session.memberId);
  // Removed between the session check and this read: the same answer as an ended session.
  if (!member) throw new AppError('UNAUTHORIZED', 'The dashboard session has ended; sign in again');
  return {
    keyId: null,
    name: member.name,
    environment: null,
    member,
    permissions: [...auth.permissions],
    organization: organizationOf(member.organization.getEntity()),
    rateLimit: null,
  };
}
