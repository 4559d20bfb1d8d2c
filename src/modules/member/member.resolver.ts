import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { DEFAULT_LIMIT } from '../../foundation/validation/arguments';
import { MemberEntity } from './member.entity';
import { listMembers } from './member.read-model';
import { MemberList } from './member.types';

@Resolver(() => MemberEntity)
export class MemberResolver {
  @Query(() => MemberList, { description: "The organization's members, newest first." })
  @RequiresPermission('members:read')
  members(
    @Ctx() context: RequestContext,
    @Arg('page', () => Int, { defaultValue: 1, description: 'Page number, from 1.' }) page: number,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT, description: 'Page size, 1 to 100.' }) limit: number,
  ): Promise<MemberList> {
    return listMembers(context.em, context.auth.organization.id, { page, limit });
  }
}
