import {
  Check,
  Collection,
  Entity,
  Enum,
  Index,
  ManyToOne,
  OneToMany,
  OptionalProps,
  PrimaryKey,
  Formula,
  Property,
  type Ref,
  Unique,
} from '@mikro-orm/core';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { newId } from '../../foundation/ids';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';
import { EventStatus, effectiveStatus } from './event-status';
import { registrationCountSql } from '../inventory/inventory.repository';
import type { EventQueue } from '../queue/queue.types';

// Named EventEntity: a class called `Event` collides with Node's global Event in decorator metadata.
// simpleResolvers: plain fields resolve as graphql's default (a property read), not through type-graphql's middleware chain.
@ObjectType('Event', { simpleResolvers: true })
@Entity({ tableName: 'events' })
@Unique({ name: 'events_organization_id_slug_unique', properties: ['organization', 'slug'] })
@Index({ name: 'events_organization_id_created_at_index', properties: ['organization', 'createdAt', 'id'] })
// Backstops for the booking commands (src/modules/booking/commands/), which keep registrationCount under a row lock.
@Check({ name: 'events_registration_count_check', expression: 'registration_count >= 0' })
@Check({ name: 'events_registration_count_capacity_check', expression: 'capacity is null or registration_count + held_count <= capacity' })
@Check({ name: 'events_held_count_check', expression: 'held_count >= 0' })
export class EventEntity {
  [OptionalProps]?:
    | 'id'
    | 'description'
    | 'venue'
    | 'venueAddress'
    | 'coverImage'
    | 'storedStatus'
    | 'capacity'
    | 'registrationCount'
    | 'createdAt'
    | 'updatedAt'
    | 'status'
    | 'organizationId'
    | 'seriesId';

  @Field(() => ID, { description: 'evt_ followed by an opaque part.' })
  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('evt');

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade' })
  organization!: Ref<OrganizationEntity>;

  @Field({ description: 'URL-friendly identifier, unique within the organization.' })
  @Property({ type: 'string', length: 100 })
  slug!: string;

  @Field()
  @Property({ type: 'string', length: 200 })
  title!: string;

  @Field(() => String, { nullable: true, description: 'Markdown, kept verbatim.' })
  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  startDate!: Date;

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  endDate!: Date;

  @Field({ description: 'IANA timezone name.' })
  @Property({ type: 'text' })
  timezone!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', length: 300, nullable: true })
  venue: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  venueAddress: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  coverImage: string | null = null;

  /** What was last set; clients see `status`, which derives COMPLETED from endDate. */
  @Enum({ items: () => EventStatus, fieldName: 'status' })
  storedStatus: EventStatus = EventStatus.DRAFT;

  @Field(() => Int, { nullable: true })
  @Property({ type: 'integer', nullable: true })
  capacity: number | null = null;

  /**
   * Sum of confirmed booking quantities: the row's count (maintained in the transaction of each booking
   * change), plus its inventory slots' when the event is slotted (src/modules/inventory/). Read-only
   * here: only the booking statements change it.
   */
  @Field(() => Int)
  @Formula((table) => registrationCountSql(String(table)))
  registrationCount: number = 0;

  @OneToMany(() => TicketTypeEntity, (ticketType) => ticketType.event, { orderBy: { createdAt: 'asc', id: 'asc' } })
  ticketTypes = new Collection<TicketTypeEntity>(this);

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3, onUpdate: () => new Date() })
  updatedAt: Date = new Date();

  /** The series it is an occurrence of (D28), or null: Event.series reads it (src/modules/series/). */
  @Property({ type: 'string', length: 40, nullable: true })
  seriesId: string | null = null;

  /**
   * Seats held now (D20) and CONFIRMED bookings checked in (D22), where the statement that made this
   * entity counted them (create, update); undefined where none did, and Event.heldCount and
   * checkedInCount read them. Not columns: what clients read is derived (inventory.repository.ts).
   */
  heldCount?: number;
  checkedInCount?: number;
  /** The on-sale queue's settings (D30) where the statement that made this entity had them (create, update), as Event.queue reads them. */
  queue?: EventQueue | null;

  @Field(() => EventStatus)
  get status(): EventStatus {
    return effectiveStatus(this.storedStatus, this.endDate);
  }

  @Field(() => String, { description: 'Owning organization, org_ followed by an opaque part.' })
  get organizationId(): string {
    return this.organization.id;
  }
}
