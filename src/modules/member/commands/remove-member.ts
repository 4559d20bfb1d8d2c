import type { MemberEntity } from '../member.entity';
import { assertKeepsAnAdmin, type MemberChangeActor } from '../member.policy';
import { countOtherAdmins, lockMember, removeMember as removeRow } from '../member.repository';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';

/**
 * Mutation.removeMember and `member remove` (D19): the member locked behind its organization, the
 * policy (the dashboard cannot remove the last admin), then removed: their sessions, password and
 * invitations go with them, and keys they made stop working. Returns the member as it was.
 */
export async function removeMember(scope: UnitOfWorkScope, organizationId: string, memberId: string, actor: MemberChangeActor): Promise<MemberEntity> {
  return inUnitOfWork(scope, async (tx, unit) => {
    const member = await lockMember(tx, organizationId, memberId);
    assertKeepsAnAdmin(actor, member, null, await countOtherAdmins(tx, organizationId, memberId));
    await recordAudit(tx, unit, { organizationId, action: 'member.removed', targetId: member.id, summary: { email: member.email, role: member.role } });
    await removeRow(tx, member);
    return member;
  });
}
