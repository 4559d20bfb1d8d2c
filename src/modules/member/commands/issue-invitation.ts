import type { EntityManager } from '@mikro-orm/postgresql';
import { replaceInvitation } from '../credentials.repository';
import type { MemberEntity } from '../member.entity';
import { invitationExpiry } from '../member.policy';
import { findMember } from '../member.repository';
import { hashSecretToken, newSecretToken } from '../secret-token';

export interface Invitation {
  member: MemberEntity;
  /** Path and fragment of the link: the token travels in the fragment, so no server or proxy logs it. */
  path: string;
  url: string;
  expiresAt: Date;
}

/**
 * Mutation.reinviteMember and `member invite` (D19): a one-time link (24 h) where the member sets a
 * password; earlier links stop working. Only the token's SHA-256 is stored.
 */
export async function issueInvitation(em: EntityManager, organizationId: string, memberId: string, publicUrl: string): Promise<Invitation> {
  const member = await findMember(em, organizationId, memberId);
  const token = newSecretToken();
  const expiresAt = invitationExpiry(new Date());
  await replaceInvitation(em, member.id, hashSecretToken(token), expiresAt);
  const path = `/dashboard/#/invite/${token}`;
  return { member, path, url: `${publicUrl}${path}`, expiresAt };
}
