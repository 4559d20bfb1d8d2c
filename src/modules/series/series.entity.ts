import { ArrayType, Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref, Unique } from '@mikro-orm/core';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { newId } from '../../foundation/ids';
import { OrganizationEntity } from '../organization/organization.entity';

/** A ticket type of the template: what each occurrence is created with (D28: as createEvent takes them). */
@ObjectType('SeriesTicketType', { simpleResolvers: true })
export class SeriesTicketType {
  @Field()
  name!: string;

  @Field(() => Float)
  price!: number;

  @Field()
  currency!: string;

  @Field(() => Int)
  quantity!: number;
}

/**
 * A series (D28): the template of its occurrences, its schedule and its version. Written by the
 * statements of series.repository.ts (never flushed by the ORM); its occurrences are events with
 * `series_id`.
 */
@ObjectType('Series', { simpleResolvers: true, description: 'A recurring event: a template, a schedule and the events it made (D28).' })
@Entity({ tableName: 'series' })
@Unique({ name: 'series_organization_id_slug_unique', properties: ['organization', 'slug'] })
@Index({ name: 'series_organization_id_created_at_index', properties: ['organization', 'createdAt', 'id'] })
export class SeriesEntity {
  [OptionalProps]?: 'id' | 'description' | 'venue' | 'venueAddress' | 'coverImage' | 'capacity' | 'version' | 'createdAt' | 'updatedAt' | 'organizationId';

  @Field(() => ID, { description: 'ser_ followed by an opaque part.' })
  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('ser');

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade' })
  organization!: Ref<OrganizationEntity>;

  @Field({ description: "Unique among the organization's series; its occurrences' slugs are `{slug}-{YYYY-MM-DD}`." })
  @Property({ type: 'string', length: 100 })
  slug!: string;

  @Field()
  @Property({ type: 'string', length: 200 })
  title!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', length: 300, nullable: true })
  venue: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  venueAddress: string | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  coverImage: string | null = null;

  @Field(() => Int, { nullable: true })
  @Property({ type: 'integer', nullable: true })
  capacity: number | null = null;

  @Field(() => [SeriesTicketType], { description: 'The ticket types each new occurrence is created with.' })
  @Property({ type: 'json' })
  ticketTypes!: SeriesTicketType[];

  @Field({ description: 'IANA timezone: occurrences keep their local wall-clock time in it.' })
  @Property({ type: 'text' })
  timezone!: string;

  @Field({ description: 'The first occurrence, local date-time without offset (e.g. 2027-03-01T18:00): the rule\'s DTSTART.' })
  @Property({ type: 'string', length: 19 })
  firstStart!: string;

  @Field(() => Int, { description: 'Each occurrence lasts this long (1 to 10,080).' })
  @Property({ type: 'integer' })
  durationMinutes!: number;

  @Field(() => [String], { description: 'RFC 5545 lines: RRULE (ending with COUNT or UNTIL), RDATE and EXDATE (local date-times).' })
  @Property({ type: ArrayType })
  recurrence!: string[];

  @Field(() => Int, {
    description: 'Changes with every change of the series and of what a plan depends on (bookings, detached occurrences): updateSeries expects it.',
  })
  @Property({ type: 'integer' })
  version: number = 1;

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  updatedAt: Date = new Date();

  /** Its number of occurrences where the statement that made this entity knew it (else Series.occurrenceCount reads it). */
  occurrenceCount?: number;

  @Field(() => String, { description: 'Owning organization, org_ followed by an opaque part.' })
  get organizationId(): string {
    return this.organization.id;
  }
}
