import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { loadDashboardSettings } from '../../foundation/dashboard-settings';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresSession } from '../../platform/graphql/requires-session';
import { changeMemberRole } from '../member/commands/change-member-role';
import { inviteMember } from '../member/commands/invite-member';
import { issueInvitation } from '../member/commands/issue-invitation';
import { removeMember } from '../member/commands/remove-member';
import { MemberEntity, MemberRole } from '../member/member.entity';
import { InviteMemberInput, MemberInvitation } from './dashboard.types';

/** D19: only a signed-in ADMIN invites members, changes roles or removes members (rules: member.policy.ts). */
@Resolver()
export class AdminMemberResolver {
  @Mutation(() => MemberInvitation, { description: 'Adds a member and returns their one-time link to set a password (24 h).' })
  @RequiresSession('ADMIN')
  inviteMember(@Ctx() { scope, auth }: RequestContext, @Arg('input', () => InviteMemberInput) input: InviteMemberInput): Promise<MemberInvitation> {
    return inviteMember(scope, auth.organization.id, input, loadDashboardSettings().publicUrl);
  }

  @Mutation(() => MemberInvitation, { description: 'A new one-time link for an existing member; earlier links stop working.' })
  @RequiresSession('ADMIN')
  reinviteMember(@Ctx() { scope, auth }: RequestContext, @Arg('id', () => ID) id: string): Promise<MemberInvitation> {
    return issueInvitation(scope, auth.organization.id, id, loadDashboardSettings().publicUrl);
  }

  @Mutation(() => MemberEntity, { description: "Changes a member's role; keys they made narrow or widen with it within a second." })
  @RequiresSession('ADMIN')
  changeMemberRole(
    @Ctx() { scope, auth }: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('role', () => MemberRole) role: MemberRole,
  ): Promise<MemberEntity> {
    return changeMemberRole(scope, auth.organization.id, id, role);
  }

  @Mutation(() => MemberEntity, { description: 'Removes a member: their sessions end and the keys they made stop working.' })
  @RequiresSession('ADMIN')
  removeMember(@Ctx() { scope, auth }: RequestContext, @Arg('id', () => ID) id: string): Promise<MemberEntity> {
    return removeMember(scope, auth.organization.id, id, 'dashboard');
  }
}
