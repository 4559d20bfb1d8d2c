import type { EntityManager } from '@mikro-orm/postgresql';
import { addMember, type AddMemberInput } from './add-member';
import { issueInvitation, type Invitation } from './issue-invitation';

/** Mutation.inviteMember (D19): adds the member (add-member's rules), then their one-time link. */
export async function inviteMember(em: EntityManager, organizationId: string, input: AddMemberInput, publicUrl: string): Promise<Invitation> {
  const member = await addMember(em, organizationId, input);
  return issueInvitation(em, organizationId, member.id, publicUrl);
}
