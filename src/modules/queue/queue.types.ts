import { IsEmail, IsInt, Max, Min } from 'class-validator';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { IsNotBlank, MaxCharacters, NotNull } from '../../foundation/validation/rules';
import { ADMISSION_MINUTES, ADMIT_PER_MINUTE, MAX_SEATS_PER_ADMISSION } from './queue.policy';

/*
 * The on-sale queue's GraphQL shapes (D30): its settings on an event (input and output), an entry,
 * the queue's figures, and a join's input.
 */

export enum QueueEntryStatus {
  WAITING = 'WAITING',
  ADMITTED = 'ADMITTED',
  USED = 'USED',
  EXPIRED = 'EXPIRED',
  SOLD_OUT = 'SOLD_OUT',
  LEFT = 'LEFT',
}

registerEnumType(QueueEntryStatus, {
  name: 'QueueEntryStatus',
  description:
    'WAITING in the queue (position 1 = next); ADMITTED: may book until admittedUntil (createBooking with queueEntryId); USED: it booked; EXPIRED: admittedUntil passed unused; SOLD_OUT: no seat was left for it; LEFT: leaveQueue (D30).',
});

@InputType('EventQueueInput', {
  description:
    'The on-sale queue of an event (D30). On create, and on the first update that sets one up, admitPerMinute is required; absent fields keep their stored value (or default).',
})
export class EventQueueInput {
  @Field(() => Boolean, { nullable: true, description: 'While true, bookings of the event go through the queue. Default true for a new queue.' })
  @NotNull()
  enabled?: boolean | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'From when joinQueue is open (before: QUEUE_NOT_OPEN); null: as soon as enabled.' })
  opensAt?: Date | null;

  @Field(() => GraphQLDateTimeISO, {
    nullable: true,
    description: 'From when admission runs; everyone who joined before gets a random place then. null: on sale as soon as enabled. Fixed once passed.',
  })
  onSaleAt?: Date | null;

  @Field(() => Int, { nullable: true, description: `Admissions a minute, ${ADMIT_PER_MINUTE.min} to ${ADMIT_PER_MINUTE.max.toLocaleString('en')}.` })
  @IsInt()
  @Min(ADMIT_PER_MINUTE.min)
  @Max(ADMIT_PER_MINUTE.max)
  @NotNull()
  admitPerMinute?: number | null;

  @Field(() => Int, { nullable: true, description: `How long an admission lasts, ${ADMISSION_MINUTES.min} to ${ADMISSION_MINUTES.max} (default ${ADMISSION_MINUTES.default}).` })
  @IsInt()
  @Min(ADMISSION_MINUTES.min)
  @Max(ADMISSION_MINUTES.max)
  @NotNull()
  admissionMinutes?: number | null;

  @Field(() => Int, {
    nullable: true,
    description: `Seats one admission may book, ${MAX_SEATS_PER_ADMISSION.min} to ${MAX_SEATS_PER_ADMISSION.max} (default ${MAX_SEATS_PER_ADMISSION.default}).`,
  })
  @IsInt()
  @Min(MAX_SEATS_PER_ADMISSION.min)
  @Max(MAX_SEATS_PER_ADMISSION.max)
  @NotNull()
  maxSeatsPerAdmission?: number | null;
}

@ObjectType('QueueStats', { description: "An event's queue in figures (D30).", simpleResolvers: true })
export class QueueStats {
  @Field(() => Int, { description: 'Entries WAITING.' })
  waiting!: number;

  @Field(() => Int, { description: 'Admissions outstanding: ADMITTED, neither used nor past admittedUntil.' })
  admitted!: number;

  @Field(() => Int, { description: 'Admissions used by a booking.' })
  used!: number;

  @Field(() => Int, { description: 'Admissions made in the last 60 seconds.' })
  admittedLastMinute!: number;
}

@ObjectType('EventQueue', { description: "An event's on-sale queue settings (D30).", simpleResolvers: true })
export class EventQueue {
  /** The event's id, for the figures (not a field). */
  eventId!: string;

  @Field()
  enabled!: boolean;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  opensAt!: Date | string | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  onSaleAt!: Date | string | null;

  @Field(() => Int)
  admitPerMinute!: number;

  @Field(() => Int)
  admissionMinutes!: number;

  @Field(() => Int)
  maxSeatsPerAdmission!: number;
}

@ObjectType('QueueEntry', { description: 'A place in an event\'s on-sale queue (D30).', simpleResolvers: true })
export class QueueEntry {
  @Field(() => ID, { description: 'qe_ followed by an opaque part.' })
  id!: string;

  @Field({ description: 'The event, evt_….' })
  eventId!: string;

  @Field()
  eventSlug!: string;

  @Field()
  attendeeEmail!: string;

  @Field(() => String, { nullable: true })
  attendeeName!: string | null;

  @Field(() => QueueEntryStatus, { description: 'An ADMITTED entry past admittedUntil reads EXPIRED from then on.' })
  status!: QueueEntryStatus;

  @Field(() => Int, {
    nullable: true,
    description: 'Place among the WAITING entries (1 = next), moving up as others are admitted or leave; null unless WAITING, and before onSaleAt (the order is drawn then).',
  })
  position!: number | null;

  @Field(() => Int, { nullable: true, description: 'Seconds until admission at the queue\'s rate; null without a position.' })
  estimatedWaitSeconds!: number | null;

  @Field(() => Int, { nullable: true, description: 'Poll again after this many seconds; null when there is nothing to wait for (not WAITING).' })
  pollAfterSeconds!: number | null;

  @Field(() => GraphQLDateTimeISO)
  joinedAt!: Date;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  admittedAt!: Date | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'Until when an admission may book.' })
  admittedUntil!: Date | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  usedAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'The booking made with the admission (bk_…).' })
  bookingId!: string | null;

  @Field({
    description: 'True only in the answer of the joinQueue call that made the entry (REST: 201); false when it answers the attendee\'s existing entry (200), and in every other read.',
  })
  created!: boolean;
}

@InputType('JoinQueueInput', { description: 'Who queues: one entry per attendee email and event.' })
export class JoinQueueInput {
  @Field({ description: 'An email address, at most 254 characters: the booking made with the admission must name the same.' })
  @IsEmail({}, { message: 'attendeeEmail must be an email address' })
  @MaxCharacters(254)
  attendeeEmail!: string;

  @Field(() => String, { nullable: true, description: '1 to 200 characters, not blank.' })
  @IsNotBlank()
  @MaxCharacters(200)
  attendeeName?: string | null;
}
