import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';
import { addMemberInUnit, newMemberFields, type AddMemberInput } from './add-member';
import { invitationInUnit, type Invitation } from './issue-invitation';

/**
 * Mutation.inviteMember (D19): adds the member (add-member's rules), then their one-time link, in one
 * unit of work: the member and the link commit together, and a retry recovered after a crash shows
 * the link that committed.
 */
export async function inviteMember(scope: UnitOfWorkScope, organizationId: string, input: AddMemberInput, publicUrl: string): Promise<Invitation> {
  const fields = newMemberFields(input);
  return inUnitOfWork(scope, async (tx, unit) => {
    const member = await addMemberInUnit(tx, organizationId, fields);
    // The link's token is never part of the entry: only who was invited, with which role.
    await recordAudit(tx, unit, { organizationId, action: 'member.invited', targetId: member.id, summary: { email: member.email, role: member.role } });
    return invitationInUnit(tx, member, publicUrl);
  });
}
