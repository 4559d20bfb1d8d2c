import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import { paginationErrors } from '../../foundation/validation/arguments';
import { pageOfMembers } from './member.repository';
import type { MemberList } from './member.types';

/** Query.members and `member list` (D8): one page of the organization's members, newest first, with the total. */
export async function listMembers(em: EntityManager, organizationId: string, query: { page: number; limit: number }): Promise<MemberList> {
  const errors = paginationErrors(query.page, query.limit);
  if (errors.length > 0) throw AppError.validation(errors);
  const { members, total } = await pageOfMembers(em, organizationId, query.page, query.limit);
  return { members, total, page: query.page, limit: query.limit };
}
