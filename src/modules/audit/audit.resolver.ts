import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../foundation/validation/arguments';
import type { RequestContext } from '../../platform/graphql/request-context';
import { RequiresPermission } from '../../platform/graphql/requires-permission';
import { auditLogPage } from './audit.read-model';
import { AuditLogList } from './audit.types';

@Resolver()
export class AuditResolver {
  @Query(() => AuditLogList, { description: "The organization's audit log (D26), newest first: who changed what, kept 400 days." })
  @RequiresPermission('audit:read')
  auditLog(
    @Ctx() context: RequestContext,
    @Arg('page', () => Int, { defaultValue: 1, description: 'Page number, from 1.' }) page: number,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT, description: 'Page size, 1 to 100.' }) limit: number,
    @Arg('action', () => String, { nullable: true, description: 'Only entries of this action, e.g. api_key.revoked.' }) action?: string | null,
    @Arg('actor', () => String, {
      nullable: true,
      description: "Only entries of this actor: a member's id or email, a key's id or prefix, or cli.",
    })
    actor?: string | null,
    @Arg('since', () => GraphQLDateTimeISO, { nullable: true, description: 'Only entries made at or after this instant.' }) since?: Date | null,
    @Arg('until', () => GraphQLDateTimeISO, { nullable: true, description: 'Only entries made strictly before this instant.' }) until?: Date | null,
    @Arg('after', () => String, {
      nullable: true,
      description: "A previous page's nextCursor: the page after it (same filters), instead of a page number.",
    })
    after?: string | null,
  ): Promise<AuditLogList> {
    return auditLogPage(context, { page, limit, action, actor, since, until, after });
  }
}
