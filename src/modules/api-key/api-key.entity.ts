import { Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { newId } from '../../foundation/ids';
import { OrganizationEntity } from '../organization/organization.entity';

export enum KeyEnvironment {
  LIVE = 'live',
  TEST = 'test',
}

@Entity({ tableName: 'api_keys' })
export class ApiKeyEntity {
  [OptionalProps]?: 'id' | 'createdAt' | 'expiresAt' | 'lastUsedAt' | 'revokedAt' | 'createdByMemberId';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('key');

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade' })
  @Index()
  organization!: Ref<OrganizationEntity>;

  @Property({ type: 'text' })
  name!: string;

  @Enum({ items: () => KeyEnvironment })
  environment!: KeyEnvironment;

  /** The first characters of the key (non-secret), so an operator can tell keys apart. */
  @Property({ type: 'string', length: 16 })
  prefix!: string;

  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  @Property({ type: 'string', length: 64, unique: true })
  keyHash!: string;

  @Property({ type: 'text[]' })
  permissions!: string[];

  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', length: 3, nullable: true })
  expiresAt: Date | null = null;

  @Property({ type: 'timestamptz', length: 3, nullable: true })
  lastUsedAt: Date | null = null;

  @Property({ type: 'timestamptz', length: 3, nullable: true })
  revokedAt: Date | null = null;

  /**
   * The member who made the key in the dashboard (D19); null for keys made with the admin CLI. Not a
   * foreign key on purpose: a removed creator must stop the key, not turn it into a creator-less one.
   */
  @Property({ type: 'string', length: 40, nullable: true })
  createdByMemberId: string | null = null;
}
