import type { EntityManager } from '@mikro-orm/postgresql';
import { inUnitOfWork } from '../../../platform/db/unit-of-work';
import { addMemberInUnit, newMemberFields, type AddMemberInput } from './add-member';
import { invitationInUnit, type Invitation } from './issue-invitation';

/**
 * Mutation.inviteMember (D19): adds the member (add-member's rules), then their one-time link, in one
 * unit of work: the member and the link commit together, and a retry recovered after a crash shows
 * the link that committed.
 */
export async function inviteMember(em: EntityManager, organizationId: string, input: AddMemberInput, publicUrl: string): Promise<Invitation> {
  const fields = newMemberFields(input);
  return inUnitOfWork(em, async (tx) => invitationInUnit(tx, await addMemberInUnit(tx, organizationId, fields), publicUrl));
}
