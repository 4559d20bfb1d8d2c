import { ArrayMaxSize, IsIn, Matches, Max, Min, ValidateNested } from 'class-validator';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, InputType, Int } from 'type-graphql';
import type { FieldError } from '../../foundation/errors/app-error';
import { IsHttpsUrl, IsIanaTimeZone, IsNotBlank, MaxCharacters, NotNull, SLUG_PATTERN } from '../../foundation/validation/rules';
import { MAX_TICKET_TYPES } from '../ticket-type/ticket-type.policy';
import { TicketTypeInput } from '../ticket-type/ticket-type.inputs';
import { scheduleErrors, SETTABLE_STATUSES } from './event.policy';
import { EventStatus } from './event-status';
import { EventQueueInput } from '../queue/queue.types';
import { queueSettingsErrors } from '../queue/queue.policy';

export const MAX_CAPACITY = 1_000_000;
const SLUG_MESSAGE = 'slug must be lower-case letters and digits in groups joined by single hyphens, e.g. launch-2027';

@InputType('CreateEventInput')
export class CreateEventInput {
  @Field({ description: 'Non-blank, at most 200 characters.' })
  @IsNotBlank()
  @MaxCharacters(200)
  title!: string;

  @Field({ description: 'Unique within the organization; ^[a-z0-9]+(-[a-z0-9]+)*$, at most 100 characters.' })
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  @MaxCharacters(100)
  slug!: string;

  @Field(() => String, { nullable: true, description: 'Markdown, at most 10,000 characters.' })
  @MaxCharacters(10_000)
  description?: string | null;

  @Field(() => GraphQLDateTimeISO, { description: 'ISO 8601 with a timezone; must be in the future.' })
  startDate!: Date;

  @Field(() => GraphQLDateTimeISO, { description: 'ISO 8601 with a timezone; after startDate.' })
  endDate!: Date;

  @Field(() => String, { nullable: true, description: "IANA name; defaults to the organization's timezone." })
  @IsIanaTimeZone()
  timezone?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 300 characters.' })
  @MaxCharacters(300)
  venue?: string | null;

  @Field(() => String, { nullable: true, description: 'Street address of the venue, at most 500 characters (D16).' })
  @MaxCharacters(500)
  venueAddress?: string | null;

  @Field(() => String, { nullable: true, description: 'An absolute https URL of a cover image, at most 2,048 characters (D16).' })
  @IsHttpsUrl()
  @MaxCharacters(2048)
  coverImage?: string | null;

  @Field(() => Int, { nullable: true, description: 'Maximum number of attendees, 1 to 1,000,000.' })
  @Min(1)
  @Max(MAX_CAPACITY)
  capacity?: number | null;

  @Field(() => [TicketTypeInput], { nullable: true, description: 'Ticket types to create with the event.' })
  @ArrayMaxSize(MAX_TICKET_TYPES)
  @ValidateNested({ each: true })
  ticketTypes?: TicketTypeInput[] | null;

  @Field(() => EventQueueInput, { nullable: true, description: 'An on-sale queue for the event (D30); admitPerMinute required.' })
  @ValidateNested()
  queue?: EventQueueInput | null;

  /** D4, the same rule as on update: the start in the future, the end after it (see event.policy); the queue's own (D30). */
  static crossFieldErrors(input: CreateEventInput): FieldError[] {
    const now = new Date();
    return [...scheduleErrors(input, undefined, now), ...(input.queue != null ? queueSettingsErrors(null, input.queue, now) : [])];
  }
}

@InputType('UpdateEventInput', {
  description:
    'Only the given fields change. slug and startDate are immutable while the event is PUBLISHED or COMPLETED.',
})
export class UpdateEventInput {
  @Field(() => String, { nullable: true })
  @IsNotBlank()
  @MaxCharacters(200)
  @NotNull()
  title?: string | null;

  @Field(() => String, { nullable: true })
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  @MaxCharacters(100)
  @NotNull()
  slug?: string | null;

  @Field(() => String, { nullable: true, description: 'null clears it.' })
  @MaxCharacters(10_000)
  description?: string | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  @NotNull()
  startDate?: Date | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true })
  @NotNull()
  endDate?: Date | null;

  @Field(() => String, { nullable: true })
  @IsIanaTimeZone()
  @NotNull()
  timezone?: string | null;

  @Field(() => String, { nullable: true, description: 'null clears it.' })
  @MaxCharacters(300)
  venue?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 500 characters; null clears it.' })
  @MaxCharacters(500)
  venueAddress?: string | null;

  @Field(() => String, { nullable: true, description: 'An absolute https URL, at most 2,048 characters; null clears it.' })
  @IsHttpsUrl()
  @MaxCharacters(2048)
  coverImage?: string | null;

  @Field(() => Int, { nullable: true, description: 'null removes the limit; never below registrationCount.' })
  @Min(1)
  @Max(MAX_CAPACITY)
  capacity?: number | null;

  @Field(() => EventStatus, { nullable: true, description: 'DRAFT, PUBLISHED or CANCELLED (COMPLETED is derived, never set).' })
  @IsIn(SETTABLE_STATUSES, { message: `status must be one of ${SETTABLE_STATUSES.join(', ')}` })
  @NotNull()
  status?: EventStatus | null;

  @Field(() => EventQueueInput, {
    nullable: true,
    description: 'The on-sale queue (D30): the given fields change (a first queue needs admitPerMinute); enabled: false turns it off.',
  })
  @ValidateNested()
  @NotNull()
  queue?: EventQueueInput | null;
}
