import type { EntityManager } from '@mikro-orm/postgresql';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';
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
 * A new one-time link for `member`, inside the caller's unit of work (`tx`): the token is made here,
 * so it is part of the unit's result and a retry recovered after a crash shows the one that committed.
 */
export async function invitationInUnit(tx: EntityManager, member: MemberEntity, publicUrl: string): Promise<Invitation> {
  const token = newSecretToken();
  const expiresAt = invitationExpiry(new Date());
  await replaceInvitation(tx, member.id, hashSecretToken(token), expiresAt);
  const path = `/dashboard/#/invite/${token}`;
  return { member, path, url: `${publicUrl}${path}`, expiresAt };
}

/**
 * Mutation.reinviteMember and `member invite` (D19): a one-time link (24 h) where the member sets a
 * password; earlier links stop working. Only the token's SHA-256 is stored. One unit of work.
 */
export async function issueInvitation(scope: UnitOfWorkScope, organizationId: string, memberId: string, publicUrl: string): Promise<Invitation> {
  return inUnitOfWork(scope, async (tx, unit) => {
    const member = await findMember(tx, organizationId, memberId);
    await recordAudit(tx, unit, { organizationId, action: 'member.invited', targetId: member.id, summary: { email: member.email, reissued: true } });
    return invitationInUnit(tx, member, publicUrl);
  });
}
