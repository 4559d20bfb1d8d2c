import type { EntityManager } from '@mikro-orm/postgresql';
import type { MemberEntity, MemberRole } from '../member.entity';
import { assertKeepsAnAdmin } from '../member.policy';
import { countOtherAdmins, lockMember } from '../member.repository';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';

/**
 * Mutation.changeMemberRole (D19): the member locked behind its organization, the policy (the last
 * admin cannot be demoted), then the new role; keys the member made narrow or widen with it.
 */
export async function changeMemberRole(em: EntityManager, organizationId: string, memberId: string, role: MemberRole): Promise<MemberEntity> {
  return inUnitOfWork(em, async (tx) => {
    const member = await lockMember(tx, organizationId, memberId);
    assertKeepsAnAdmin('dashboard', member, role, await countOtherAdmins(tx, organizationId, memberId));
    member.role = role;
    await tx.flush();
    return member;
  });
}
