import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Plan, SkipReason } from './series-planner';
import { formatLocalDateTime } from './series-time';

/*
 * A plan as the API shows it (D28): previewSeriesChange's answer, and what updateSeries applied.
 * Every entry names its occurrence by slug and start (UTC); a move its `from` and `to` and the slug
 * it has after (`toSlug`); a skip its reason.
 */

export enum SeriesSkipReason {
  HAS_BOOKINGS = 'HAS_BOOKINGS',
  DETACHED = 'DETACHED',
  STARTED = 'STARTED',
}

registerEnumType(SeriesSkipReason, {
  name: 'SeriesSkipReason',
  description: 'Why an occurrence stays as it is: confirmed bookings (a date that would move without moveBooked, or be deleted), edited on its own, or started.',
});

@ObjectType('SeriesPlanEntry', { simpleResolvers: true, description: 'An occurrence to create, update or delete.' })
export class SeriesPlanEntry {
  @Field(() => ID, { nullable: true, description: 'The event (null for one to create).' })
  eventId!: string | null;

  @Field()
  slug!: string;

  @Field(() => GraphQLDateTimeISO)
  start!: Date;

  @Field({ description: 'The start as a local date-time of the series\' timezone.' })
  localStart!: string;

  @Field(() => [String], { description: 'What changes (an update): template fields, endDate.' })
  fields!: string[];
}

@ObjectType('SeriesPlanMove', { simpleResolvers: true, description: 'An occurrence whose start changes: the same event, its slug following its new local date.' })
export class SeriesPlanMove {
  @Field(() => ID)
  eventId!: string;

  @Field({ description: 'Its slug now.' })
  slug!: string;

  @Field({ description: 'Its slug after the move (the same when its local date stays).' })
  toSlug!: string;

  @Field(() => GraphQLDateTimeISO, { description: 'Its start after the move (= to).' })
  start!: Date;

  @Field(() => GraphQLDateTimeISO)
  from!: Date;

  @Field(() => GraphQLDateTimeISO)
  to!: Date;

  @Field({ description: 'The new start as a local date-time of the series\' timezone.' })
  localStart!: string;

  @Field({ description: 'It has confirmed bookings (moved with moveBooked: they stay; event.rescheduled is sent).' })
  booked!: boolean;

  @Field(() => [String])
  fields!: string[];
}

@ObjectType('SeriesPlanSkip', { simpleResolvers: true, description: 'An occurrence the change leaves as it is, and why.' })
export class SeriesPlanSkip {
  @Field(() => ID)
  eventId!: string;

  @Field()
  slug!: string;

  @Field(() => GraphQLDateTimeISO)
  start!: Date;

  @Field(() => SeriesSkipReason)
  reason!: SkipReason;
}

@ObjectType('SeriesPlan', { simpleResolvers: true, description: 'What a series change does (D28). updateSeries with expectedVersion = version does exactly this.' })
export class SeriesPlan {
  @Field(() => Int, { description: 'The series version the plan was made on.' })
  version!: number;

  @Field(() => [SeriesPlanEntry])
  create!: SeriesPlanEntry[];

  @Field(() => [SeriesPlanEntry])
  update!: SeriesPlanEntry[];

  @Field(() => [SeriesPlanEntry])
  delete!: SeriesPlanEntry[];

  @Field(() => [SeriesPlanMove])
  move!: SeriesPlanMove[];

  @Field(() => [SeriesPlanSkip])
  skip!: SeriesPlanSkip[];
}

export type SeriesPlanView = SeriesPlan;

/** The plan as the API shows it; `localOf` gives an instant's local time in the series' timezone. */
export function planView(plan: Plan, version: number, localOf: (instant: number) => number = (instant) => instant): SeriesPlanView {
  const local = (instant: number) => formatLocalDateTime(localOf(instant));
  return {
    version,
    create: plan.create.map((entry) => ({ eventId: null, slug: entry.slug, start: new Date(entry.start), localStart: formatLocalDateTime(entry.key), fields: [] })),
    update: plan.update.map((entry) => ({ eventId: entry.eventId, slug: entry.slug, start: new Date(entry.start), localStart: local(entry.start), fields: entry.fields })),
    delete: plan.delete.map((entry) => ({ eventId: entry.eventId, slug: entry.slug, start: new Date(entry.start), localStart: local(entry.start), fields: [] })),
    move: plan.move.map((entry) => ({
      eventId: entry.eventId,
      slug: entry.slug,
      toSlug: entry.toSlug,
      start: new Date(entry.to),
      from: new Date(entry.from),
      to: new Date(entry.to),
      localStart: formatLocalDateTime(entry.key),
      booked: entry.booked,
      fields: entry.fields,
    })),
    skip: plan.skip.map((entry) => ({ eventId: entry.eventId, slug: entry.slug, start: new Date(entry.start), reason: entry.reason })),
  };
}
