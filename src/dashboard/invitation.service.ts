import type { EntityManager } from '@mikro-orm/postgresql';
import { acceptInvitation } from '../modules/member/commands/accept-invitation';
import { issueInvitation, type Invitation } from '../modules/member/commands/issue-invitation';
import { organizationOfMember } from '../modules/member/member.repository';

export type { Invitation };
export { INVITATION_LIFETIME_MS } from '../modules/member/member.policy';

/**
 * The invitation commands under their former names, for callers outside src/ (test helpers). Code in
 * src/ calls src/modules/member/commands/issue-invitation.ts and accept-invitation.ts directly.
 */
export class InvitationService {
  constructor(private readonly em: EntityManager) {}

  /** A new link for a member of `organizationId` (of any organization when undefined, as the operator). */
  async invite(memberId: string, publicUrl: string, organizationId?: string): Promise<Invitation> {
    return issueInvitation(this.em, organizationId ?? (await organizationOfMember(this.em, memberId)), memberId, publicUrl);
  }

  accept(token: unknown, password: unknown): Promise<string> {
    return acceptInvitation(this.em, token, password);
  }
}
