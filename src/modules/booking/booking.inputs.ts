import { IsEmail, IsInt, Matches, Max, Min } from 'class-validator';
import { Field, ID, InputType, Int } from 'type-graphql';
import { IsNotBlank, MaxCharacters } from '../../foundation/validation/rules';
import type { FieldError } from '../../foundation/errors/app-error';
import { idErrors, idPattern, slugErrors } from '../../foundation/validation/arguments';
import { MAX_HOLD_MINUTES } from '../organization/hold-settings';
import { MAX_TICKET_CODE_LENGTH, TICKET_CODE_SHAPE } from '../../platform/crypto/ticket-codes';

/** One booking takes at most this many seats: larger groups book several times. */
export const MAX_BOOKING_QUANTITY = 1_000;

/**
 * What a booking and a waiting-list entry (D21, joinWaitlist) both ask for: which event and ticket
 * type, how many seats, for whom. One set of rules for both inputs.
 */
// A GraphQL input type of its own only for its fields' sake: no field takes it, so the schema has none.
@InputType('SeatsRequestInput')
export abstract class SeatsRequestInput {
  @Field({ description: 'The event; it must be PUBLISHED.' })
  eventSlug!: string;

  @Field(() => ID, {
    nullable: true,
    description: "A ticket type of that event; without one the seats count only against the event's capacity.",
  })
  ticketTypeId?: string | null;

  @Field(() => Int, { description: `Seats, 1 to ${MAX_BOOKING_QUANTITY}.` })
  @Min(1)
  @Max(MAX_BOOKING_QUANTITY)
  quantity!: number;

  @Field({ description: 'An email address, at most 254 characters.' })
  @IsEmail({}, { message: 'attendeeEmail must be an email address' })
  @MaxCharacters(254)
  attendeeEmail!: string;

  @Field({ description: '1 to 200 characters, not blank.' })
  @IsNotBlank()
  @MaxCharacters(200)
  attendeeName!: string;
}

/** The rules of a SeatsRequestInput's arguments that are not its class's own: the slug's and the ticket type id's shape. */
export function seatsRequestErrors(input: SeatsRequestInput): FieldError[] {
  return [
    ...slugErrors('eventSlug', input.eventSlug),
    ...(input.ticketTypeId == null ? [] : idErrors('ticketTypeId', input.ticketTypeId, 'tt')),
  ];
}

@InputType('CreateBookingInput')
export class CreateBookingInput extends SeatsRequestInput {
  @Field(() => Boolean, {
    nullable: true,
    description: "true: a HELD booking whose seats are taken until expiresAt, then free unless confirmBooking confirms it (D20). Default false: CONFIRMED at once.",
  })
  hold?: boolean | null;

  @Field(() => Int, {
    nullable: true,
    description: "With hold: how long the hold lasts, 1 to the organization's holdMinutes (its default).",
  })
  @IsInt()
  @Min(1)
  @Max(MAX_HOLD_MINUTES)
  holdMinutes?: number | null;

  // Its type from the property's (String): a type function here would run on every booking (type-graphql reads it per request).
  @Field({
    nullable: true,
    description: "D30: while the event's queue is enabled, the id (qe_…) of the ADMITTED queue entry of the same attendeeEmail; the booking uses it (USED).",
  })
  @Matches(idPattern('qe'), { message: 'queueEntryId must be an id starting with qe_' })
  queueEntryId?: string;

  /** holdMinutes belongs to a hold. */
  static crossFieldErrors(input: CreateBookingInput): FieldError[] {
    return input.holdMinutes != null && input.hold !== true ? [{ field: 'holdMinutes', message: 'holdMinutes needs hold: true' }] : [];
  }
}

/** The longest reason a transfer may give (D29): kept in its audit entry. */
export const MAX_TRANSFER_REASON = 500;

@InputType('TransferBookingInput', { description: 'Who holds the ticket from now on (D29).' })
export class TransferBookingInput {
  @Field({ description: 'The new attendee: 1 to 200 characters, not blank.' })
  @IsNotBlank()
  @MaxCharacters(200)
  attendeeName!: string;

  @Field({ description: "The new attendee's email address, at most 254 characters." })
  @IsEmail({}, { message: 'attendeeEmail must be an email address' })
  @MaxCharacters(254)
  attendeeEmail!: string;

  @Field(() => String, { nullable: true, description: `Why, for the audit log: at most ${MAX_TRANSFER_REASON} characters.` })
  @MaxCharacters(MAX_TRANSFER_REASON)
  reason?: string | null;
}

@InputType('ExchangeBookingInput', { description: 'Where the booking moves to (D29).' })
export class ExchangeBookingInput {
  @Field({ description: "Another event of the organization (not the booking's own); it must be PUBLISHED." })
  eventSlug!: string;

  @Field(() => ID, { nullable: true, description: 'A ticket type of that event: required when it has ticket types.' })
  ticketTypeId?: string | null;
}

/** The rules of an ExchangeBookingInput that are not its class's own: the slug's and the ticket type id's shape. */
export function exchangeInputErrors(input: ExchangeBookingInput): FieldError[] {
  return [...slugErrors('eventSlug', input.eventSlug), ...(input.ticketTypeId == null ? [] : idErrors('ticketTypeId', input.ticketTypeId, 'tt'))];
}

/** A scanned ticket code (D29): URL-safe characters, bounded; the message never repeats it (a code opens a door). */
export function ticketCodeErrors(field: string, code: string): FieldError[] {
  if (code.length >= 1 && code.length <= MAX_TICKET_CODE_LENGTH && TICKET_CODE_SHAPE.test(code)) return [];
  return [{ field, message: `${field} must be a ticket code: 1 to ${MAX_TICKET_CODE_LENGTH} letters, digits, - or _` }];
}
