import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import { newId } from '../../foundation/ids';
import { OrganizationEntity } from '../organization/organization.entity';

@ObjectType('WebhookEndpoint', { description: 'A URL of the organization that receives signed messages about changes (D18).' })
@Entity({ tableName: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  [OptionalProps]?:
    | 'id'
    | 'description'
    | 'eventTypes'
    | 'enabled'
    | 'previousSecretCiphertext'
    | 'previousSecretExpiresAt'
    | 'failingSince'
    | 'disabledReason'
    | 'createdAt'
    | 'updatedAt';

  @Field(() => ID, { description: 'whe_ followed by an opaque part.' })
  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('whe');

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade' })
  organization!: Ref<OrganizationEntity>;

  @Field({ description: 'Where messages are POSTed (https).' })
  @Property({ type: 'string', length: 2048 })
  url!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', length: 500, nullable: true })
  description: string | null = null;

  @Field(() => [String], { description: 'The message types sent to this endpoint; empty means every type.' })
  @Property({ type: 'text[]' })
  eventTypes: string[] = [];

  @Field({ description: 'Disabled endpoints get no new messages and no attempts.' })
  @Property({ type: 'boolean' })
  enabled: boolean = true;

  /** The signing secret, encrypted with the server key (see webhook-secret.ts). Never shown again. */
  @Property({ type: 'text' })
  secretCiphertext!: string;

  /** The secret before the last rotation: it still signs, beside the new one, until previousSecretExpiresAt. */
  @Property({ type: 'text', nullable: true })
  previousSecretCiphertext: string | null = null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'Until when the secret replaced by the last rotation still signs.' })
  @Property({ type: 'timestamptz', length: 3, nullable: true })
  previousSecretExpiresAt: Date | null = null;

  /** Set by the first failed attempt after a success; five days of failures disable the endpoint. */
  @Property({ type: 'timestamptz', length: 3, nullable: true })
  failingSince: Date | null = null;

  @Field(() => String, { nullable: true, description: 'Why the service disabled the endpoint, when it did.' })
  @Property({ type: 'text', nullable: true })
  disabledReason: string | null = null;

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3, onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
