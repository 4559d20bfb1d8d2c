import type { EntityManager } from '@mikro-orm/postgresql';
import { paginationErrors } from '../../foundation/validation/arguments';
import { pageOfMembers } from './member.repository';
import type { MemberList } from './member.types';
import { assertValidInput } from '../../foundation/validation/validate-input';

/** Query.members and `member list` (D8): one page of the organization's members, newest first, with the total. */
export async function listMembers(em: EntityManager, organizationId: string, query: { page: number; limit: number }): Promise<MemberList> {
  assertValidInput(paginationErrors(query.page, query.limit));
  const { members, total } = await pageOfMembers(em, organizationId, query.page, query.limit);
  return { members, total, page: query.page, limit: query.limit };
}
