import type { EntityManager } from '@mikro-orm/postgresql';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { findOrganization } from '../../organization/organization.repository';
import type { MemberEntity } from '../member.entity';
import { duplicateEmailError, newMemberErrors, normalizeEmail, parseRole } from '../member.policy';
import { addMember as addRow, emailTaken } from '../member.repository';

export interface AddMemberInput {
  email: string;
  name: string;
  /** `admin` or `member`, any case; MEMBER when absent. */
  role?: string;
}

/**
 * `member add` and (through invite-member) Mutation.inviteMember (D8): fields checked at once, the
 * organization found, the email free in it (the unique index decides a race), then the member added.
 */
export async function addMember(em: EntityManager, organizationId: string, input: AddMemberInput): Promise<MemberEntity> {
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  const role = parseRole(input.role);
  assertValidInput(newMemberErrors({ email, name, role }));

  await findOrganization(em, organizationId);
  // A second pass, once the organization is found (an unknown one is NOT_FOUND, not a free email).
  assertValidInput((await emailTaken(em, organizationId, email)) ? [duplicateEmailError(email)] : []);
  return addRow(em, organizationId, { email, name, role: role! /* the policy refuses a missing role */ });
}
