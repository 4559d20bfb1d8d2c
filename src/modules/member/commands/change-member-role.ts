import type { MemberEntity, MemberRole } from '../member.entity';
import { assertKeepsAnAdmin } from '../member.policy';
import { countOtherAdmins, lockMember } from '../member.repository';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';

/**
 * Mutation.changeMemberRole (D19): the member locked behind its organization, the policy (the last
 * admin cannot be demoted), then the new role; keys the member made narrow or widen with it.
 */
export async function changeMemberRole(scope: UnitOfWorkScope, organizationId: string, memberId: string, role: MemberRole): Promise<MemberEntity> {
  return inUnitOfWork(scope, async (tx, unit) => {
    const member = await lockMember(tx, organizationId, memberId);
    assertKeepsAnAdmin('dashboard', member, role, await countOtherAdmins(tx, organizationId, memberId));
    // The same role again changes nothing, and records nothing.
    if (member.role !== role) {
      await recordAudit(tx, unit, { organizationId, action: 'member.role_changed', targetId: member.id, summary: { email: member.email, from: member.role, to: role } });
    }
    member.role = role;
    await tx.flush();
    return member;
  });
}
