import type { EntityManager } from '@mikro-orm/postgresql';
import { assertValidInput } from '../../../foundation/validation/validate-input';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import type { UnitOfWorkScope } from '../../../platform/db/unit-of-work-scope';
import { recordAudit } from '../../../platform/audit/audit-log';
import { findOrganization } from '../../organization/organization.repository';
import type { MemberEntity, MemberRole } from '../member.entity';
import { duplicateEmailError, newMemberErrors, normalizeEmail, parseRole } from '../member.policy';
import { addMember as addRow, emailTaken } from '../member.repository';

export interface AddMemberInput {
  email: string;
  name: string;
  /** `admin` or `member`, any case; MEMBER when absent. */
  role?: string;
}

/** A new member's fields, normalized and checked at once (before any unit of work opens). */
export interface NewMember {
  email: string;
  name: string;
  role: MemberRole;
}

export function newMemberFields(input: AddMemberInput): NewMember {
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  const role = parseRole(input.role);
  assertValidInput(newMemberErrors({ email, name, role }));
  return { email, name, role: role! /* the policy refuses a missing role */ };
}

/**
 * The state-dependent part of adding a member, inside the caller's unit of work (`tx`): the
 * organization found, the email free in it (the unique index decides a race), then the member added.
 */
export async function addMemberInUnit(tx: EntityManager, organizationId: string, fields: NewMember): Promise<MemberEntity> {
  await findOrganization(tx, organizationId);
  // A second pass, once the organization is found (an unknown one is NOT_FOUND, not a free email).
  assertValidInput((await emailTaken(tx, organizationId, fields.email)) ? [duplicateEmailError(fields.email)] : []);
  return addRow(tx, organizationId, fields);
}

/**
 * `member add` and (through invite-member) Mutation.inviteMember (D8): fields checked at once, then,
 * in one unit of work, the organization found, the email free in it and the member added.
 */
export async function addMember(scope: UnitOfWorkScope, organizationId: string, input: AddMemberInput): Promise<MemberEntity> {
  const fields = newMemberFields(input);
  return inUnitOfWork(scope, async (tx, unit) => {
    const member = await addMemberInUnit(tx, organizationId, fields);
    await recordAudit(tx, unit, { organizationId, action: 'member.added', targetId: member.id, summary: { email: member.email, role: member.role } });
    return member;
  });
}
