import { IsEmail, IsInt, Max, Min } from 'class-validator';
import { Field, ID, InputType, Int } from 'type-graphql';
import { IsNotBlank, MaxCharacters } from '../../foundation/validation/rules';
import type { FieldError } from '../../foundation/errors/app-error';
import { MAX_HOLD_MINUTES } from '../organization/hold-settings';

/** One booking takes at most this many seats: larger groups book several times. */
export const MAX_BOOKING_QUANTITY = 1_000;

@InputType('CreateBookingInput')
export class CreateBookingInput {
  @Field({ description: 'The event to book; it must be PUBLISHED.' })
  eventSlug!: string;

  @Field(() => ID, {
    nullable: true,
    description: "A ticket type of that event; without one the booking counts only against the event's capacity.",
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

  /** holdMinutes belongs to a hold. */
  static crossFieldErrors(input: CreateBookingInput): FieldError[] {
    return input.holdMinutes != null && input.hold !== true ? [{ field: 'holdMinutes', message: 'holdMinutes needs hold: true' }] : [];
  }
}
