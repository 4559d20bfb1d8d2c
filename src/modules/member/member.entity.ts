import { Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref, Unique } from '@mikro-orm/core';
import { newId } from '../../ids';
import { OrganizationEntity } from '../organization/organization.entity';

export enum MemberRole {
  ADMIN = 'ADMIN',
  MEMBER = 'MEMBER',
}

@Entity({ tableName: 'members' })
@Unique({ name: 'members_organization_id_email_unique', properties: ['organization', 'email'] })
export class MemberEntity {
  [OptionalProps]?: 'id' | 'role' | 'createdAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('mem');

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade' })
  organization!: Ref<OrganizationEntity>;

  @Property({ type: 'string', length: 254 })
  email!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Enum({ items: () => MemberRole })
  role: MemberRole = MemberRole.MEMBER;

  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();
}
