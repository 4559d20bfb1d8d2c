import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { InvitationService } from '../../dashboard/invitation.service';
import { loadDashboardSettings } from '../../config';
import type { RequestContext } from '../../graphql/request-context';
import { RequiresSession } from '../../graphql/requires-session';
import { MemberEntity, MemberRole } from '../member/member.entity';
import { MemberService } from '../member/member.service';
import { AdminMemberService } from './admin-member.service';
import { InviteMemberInput, MemberInvitation } from './admin.types';

/** D19: only a signed-in ADMIN invites members, changes roles or removes members. */
@Resolver()
export class AdminMemberResolver {
  @Mutation(() => MemberInvitation, { description: 'Adds a member and returns their one-time link to set a password (24 h).' })
  @RequiresSession('ADMIN')
  async inviteMember(@Ctx() context: RequestContext, @Arg('input', () => InviteMemberInput) input: InviteMemberInput): Promise<MemberInvitation> {
    const organizationId = context.auth.organization.id;
    const member = await new MemberService(context.em).add({ organizationId, email: input.email, name: input.name, role: input.role });
    return new InvitationService(context.em).invite(member.id, loadDashboardSettings().publicUrl, organizationId);
  }

  @Mutation(() => MemberInvitation, { description: 'A new one-time link for an existing member; earlier links stop working.' })
  @RequiresSession('ADMIN')
  reinviteMember(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<MemberInvitation> {
    return new InvitationService(context.em).invite(id, loadDashboardSettings().publicUrl, context.auth.organization.id);
  }

  @Mutation(() => MemberEntity, { description: "Changes a member's role; keys they made narrow or widen with it within a second." })
  @RequiresSession('ADMIN')
  changeMemberRole(
    @Ctx() context: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('role', () => MemberRole) role: MemberRole,
  ): Promise<MemberEntity> {
    return new AdminMemberService(context.em, context.auth.organization.id).changeRole(id, role);
  }

  @Mutation(() => MemberEntity, { description: 'Removes a member: their sessions end and the keys they made stop working.' })
  @RequiresSession('ADMIN')
  removeMember(@Ctx() context: RequestContext, @Arg('id', () => ID) id: string): Promise<MemberEntity> {
    return new AdminMemberService(context.em, context.auth.organization.id).remove(id);
  }
}
