import { GraphQLJSONObject } from 'graphql-scalars';
import { ListPage } from '../../platform/graphql/list-page';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum AuditActorKind {
  MEMBER = 'MEMBER',
  API_KEY = 'API_KEY',
  CLI = 'CLI',
  SYSTEM = 'SYSTEM',
}
registerEnumType(AuditActorKind, {
  name: 'AuditActorKind',
  description: 'Who made an audited change: a dashboard member, an API key, the operator at the admin CLI, or the service itself.',
});

@ObjectType('AuditActor', { description: 'Who made an audited change (D26).', simpleResolvers: true })
export class AuditActor {
  @Field(() => AuditActorKind)
  kind!: AuditActorKind;

  @Field(() => String, { nullable: true, description: "The member's id (mem_…) or the key's id (key_…); null for the CLI and the system." })
  id!: string | null;

  @Field({ description: "What to show: the member's email, the key's prefix (nk_live_ab12…), `cli`, or `system:<task>`." })
  label!: string;
}

@ObjectType('AuditEntry', { description: 'One audited change (D26): entries are never edited, and kept 400 days.', simpleResolvers: true })
export class AuditEntry {
  @Field(() => ID, { description: 'aud_ followed by an opaque part.' })
  id!: string;

  @Field({ description: 'What was done, as resource.verb: api_key.revoked, member.role_changed, event.published…' })
  action!: string;

  @Field(() => AuditActor)
  actor!: AuditActor;

  @Field({ description: 'The id of what changed: a key, member, webhook endpoint, event or organization.' })
  targetId!: string;

  @Field(() => GraphQLJSONObject, { description: 'What changed (a role from/to, settings old/new, an endpoint URL); never a secret.' })
  summary!: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: "The client's address, when a request made the change (none from the CLI)." })
  clientIp!: string | null;

  @Field(() => String, { nullable: true, description: "The request's id (the X-Request-Id answered), when a request made the change." })
  requestId!: string | null;

  @Field()
  createdAt!: Date;
}

@ObjectType('AuditLogList', { description: 'One page of the audit log, newest first.', simpleResolvers: true })
export class AuditLogList extends ListPage {
  @Field(() => [AuditEntry])
  entries!: AuditEntry[];
}
