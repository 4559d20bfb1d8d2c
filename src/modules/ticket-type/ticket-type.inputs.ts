import { IsNumber, isISO4217CurrencyCode, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { Field, Float, InputType, Int } from 'type-graphql';
import { IsNotBlank } from '../../validation/rules';

export const MAX_TICKET_PRICE = 9_999_999.99;
export const MAX_TICKET_QUANTITY = 1_000_000;

/** ISO 4217 in its canonical spelling: three upper-case letters of a known currency (`eur` is refused). */
function IsCurrencyCode(): PropertyDecorator {
  return ValidateBy({
    name: 'isCurrencyCode',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && /^[A-Z]{3}$/.test(value) && isISO4217CurrencyCode(value),
      defaultMessage: () => 'currency must be an ISO 4217 currency code in upper case, such as EUR or USD',
    },
  });
}

@InputType('TicketTypeInput', { description: 'A ticket type offered for an event.' })
export class TicketTypeInput {
  @Field({ description: '1 to 100 characters.' })
  @IsNotBlank()
  @MaxLength(100)
  name!: string;

  @Field(() => Float, { description: 'Decimal, at least 0, at most two decimal places.' })
  @IsNumber({ maxDecimalPlaces: 2 }, { message: 'price must be a number with at most two decimal places' })
  @Min(0)
  @Max(MAX_TICKET_PRICE)
  price!: number;

  @Field({ description: 'ISO 4217 code, three upper-case letters, e.g. EUR.' })
  @IsCurrencyCode()
  currency!: string;

  @Field(() => Int, { description: 'Tickets available in total, at least 0.' })
  @Min(0)
  @Max(MAX_TICKET_QUANTITY)
  quantity!: number;
}

@InputType('TicketTypeUpdateInput', { description: 'Fields to change on a ticket type; absent fields are kept.' })
export class TicketTypeUpdateInput {
  @Field({ nullable: true })
  @IsNotBlank()
  @MaxLength(100)
  name?: string;

  @Field(() => Float, { nullable: true })
  @IsNumber({ maxDecimalPlaces: 2 }, { message: 'price must be a number with at most two decimal places' })
  @Min(0)
  @Max(MAX_TICKET_PRICE)
  price?: number;

  @Field({ nullable: true })
  @IsCurrencyCode()
  currency?: string;

  @Field(() => Int, { nullable: true, description: 'Never below the number already sold.' })
  @Min(0)
  @Max(MAX_TICKET_QUANTITY)
  quantity?: number;
}
