import { ArrayMaxSize, Matches, Max, Min, ValidateNested } from 'class-validator';
import { Field, InputType, Int, registerEnumType } from 'type-graphql';
import { IsHttpsUrl, IsIanaTimeZone, IsNotBlank, MaxCharacters, NotNull, SLUG_PATTERN } from '../../foundation/validation/rules';
import { MAX_CAPACITY } from '../event/event.inputs';
import { TicketTypeInput } from '../ticket-type/ticket-type.inputs';
import { MAX_TICKET_TYPES } from '../ticket-type/ticket-type.policy';
import { MAX_SERIES_SLUG_LENGTH } from './series-slugs';
import { MAX_DURATION_MINUTES } from './series.policy';

const SLUG_MESSAGE = 'slug must be lower-case letters and digits in groups joined by single hyphens, e.g. yoga-tuesdays';
/** The shape of firstStart (the calendar is checked by the policy). */
export const LOCAL_DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;
const LOCAL_MESSAGE = 'firstStart must be a local date-time without offset, e.g. 2027-03-01T18:00';

@InputType('CreateSeriesInput', { description: 'A series (D28): the template of every occurrence, flat as on createEvent, and its schedule.' })
export class CreateSeriesInput {
  @Field({ description: 'Non-blank, at most 200 characters: the title of every occurrence.' })
  @IsNotBlank()
  @MaxCharacters(200)
  title!: string;

  @Field({ description: `Unique among the organization's series; ^[a-z0-9]+(-[a-z0-9]+)*$, at most ${MAX_SERIES_SLUG_LENGTH} characters.` })
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  @MaxCharacters(MAX_SERIES_SLUG_LENGTH)
  slug!: string;

  @Field(() => String, { nullable: true, description: 'Markdown, at most 10,000 characters.' })
  @MaxCharacters(10_000)
  description?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 300 characters.' })
  @MaxCharacters(300)
  venue?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 500 characters.' })
  @MaxCharacters(500)
  venueAddress?: string | null;

  @Field(() => String, { nullable: true, description: 'An absolute https URL, at most 2,048 characters.' })
  @IsHttpsUrl()
  @MaxCharacters(2048)
  coverImage?: string | null;

  @Field(() => Int, { nullable: true, description: 'Maximum number of attendees of each occurrence, 1 to 1,000,000.' })
  @Min(1)
  @Max(MAX_CAPACITY)
  capacity?: number | null;

  @Field(() => [TicketTypeInput], { nullable: true, description: 'Ticket types each occurrence is created with.' })
  @ArrayMaxSize(MAX_TICKET_TYPES)
  @ValidateNested({ each: true })
  ticketTypes?: TicketTypeInput[] | null;

  @Field({ description: 'IANA timezone (required): every occurrence keeps its local wall-clock time in it.' })
  @IsIanaTimeZone()
  timezone!: string;

  @Field({ description: 'The first occurrence: a local date-time without offset (e.g. 2027-03-01T18:00), in the future.' })
  @Matches(LOCAL_DATE_TIME_PATTERN, { message: LOCAL_MESSAGE })
  firstStart!: string;

  @Field(() => Int, { description: 'How long each occurrence lasts, 1 to 10,080 minutes.' })
  @Min(1)
  @Max(MAX_DURATION_MINUTES)
  durationMinutes!: number;

  @Field(() => [String], {
    description:
      'RFC 5545 lines: RRULE (required, ending with COUNT or UNTIL, UNTIL in UTC such as 20270601T000000Z), RDATE and EXDATE (local date-times such as 20270305T180000). At most 1,000 occurrences within 3 years of firstStart.',
  })
  recurrence!: string[];
}

@InputType('SeriesChangesInput', { description: 'What changes (D28); absent fields stay as they are, null clears an optional one.' })
export class SeriesChangesInput {
  @Field(() => String, { nullable: true })
  @IsNotBlank()
  @MaxCharacters(200)
  @NotNull()
  title?: string | null;

  @Field(() => String, { nullable: true })
  @MaxCharacters(10_000)
  description?: string | null;

  @Field(() => String, { nullable: true })
  @MaxCharacters(300)
  venue?: string | null;

  @Field(() => String, { nullable: true })
  @MaxCharacters(500)
  venueAddress?: string | null;

  @Field(() => String, { nullable: true })
  @IsHttpsUrl()
  @MaxCharacters(2048)
  coverImage?: string | null;

  @Field(() => Int, { nullable: true, description: 'null removes the limit; never below the seats taken of an occurrence (it is skipped, HAS_BOOKINGS).' })
  @Min(1)
  @Max(MAX_CAPACITY)
  capacity?: number | null;

  @Field(() => [TicketTypeInput], { nullable: true, description: 'The ticket types of occurrences made from now on (existing ones keep theirs).' })
  @ArrayMaxSize(MAX_TICKET_TYPES)
  @ValidateNested({ each: true })
  @NotNull()
  ticketTypes?: TicketTypeInput[] | null;

  @Field(() => String, { nullable: true, description: 'A new timezone: the occurrences keep their local times in it (they move).' })
  @IsIanaTimeZone()
  @NotNull()
  timezone?: string | null;

  @Field(() => String, { nullable: true, description: 'A new first local start: with FOLLOWING, the first start of the new series.' })
  @Matches(LOCAL_DATE_TIME_PATTERN, { message: LOCAL_MESSAGE })
  @NotNull()
  firstStart?: string | null;

  @Field(() => Int, { nullable: true })
  @Min(1)
  @Max(MAX_DURATION_MINUTES)
  @NotNull()
  durationMinutes?: number | null;

  @Field(() => [String], { nullable: true, description: 'New RFC 5545 lines, with the limits of createSeries.' })
  @NotNull()
  recurrence?: string[] | null;
}

export enum SeriesScope {
  ALL = 'ALL',
  FOLLOWING = 'FOLLOWING',
}

registerEnumType(SeriesScope, {
  name: 'SeriesScope',
  description: 'ALL: every occurrence that has not started. FOLLOWING: from the occurrence `from` on, which become a new series `newSlug`.',
});

/** The arguments of previewSeriesChange and updateSeries (D28), as the commands take them. */
export interface SeriesChangeArguments {
  slug: string;
  changes: SeriesChangesInput;
  scope: SeriesScope;
  from?: string | null;
  newSlug?: string | null;
  expectedVersion?: number | null;
  moveBooked: boolean;
}
