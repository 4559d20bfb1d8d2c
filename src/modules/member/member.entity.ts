import { Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref, Unique } from '@mikro-orm/core';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { newId } from '../../foundation/ids';
import { OrganizationEntity } from '../organization/organization.entity';

export enum MemberRole {
  ADMIN = 'ADMIN',
  MEMBER = 'MEMBER',
}

registerEnumType(MemberRole, { name: 'MemberRole' });

@ObjectType('Member', { description: 'A person of the organization.' })
@Entity({ tableName: 'members' })
@Unique({ name: 'members_organization_id_email_unique', properties: ['organization', 'email'] })
export class MemberEntity {
  [OptionalProps]?: 'id' | 'role' | 'createdAt';

  @Field(() => ID, { description: 'mem_ followed by an opaque part.' })
  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('mem');

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade' })
  organization!: Ref<OrganizationEntity>;

  @Field({ description: 'Stored in lower case; unique within the organization.' })
  @Property({ type: 'string', length: 254 })
  email!: string;

  @Field()
  @Property({ type: 'string', length: 200 })
  name!: string;

  @Field(() => MemberRole)
  @Enum({ items: () => MemberRole })
  role: MemberRole = MemberRole.MEMBER;

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();
}
