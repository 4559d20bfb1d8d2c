import { Max, Min } from 'class-validator';
import { Field, Float, InputType, Int } from 'type-graphql';
import { IsCurrencyCode, IsDecimal, IsNotBlank, MaxCharacters, NotNull } from '../../foundation/validation/rules';

export const MAX_TICKET_PRICE = 9_999_999.99;
export const MAX_TICKET_QUANTITY = 1_000_000;

@InputType('TicketTypeInput', { description: 'A ticket type offered for an event.' })
export class TicketTypeInput {
  @Field({ description: '1 to 100 characters.' })
  @IsNotBlank()
  @MaxCharacters(100)
  name!: string;

  @Field(() => Float, { description: 'Decimal, at least 0, at most two decimal places.' })
  @IsDecimal(2, { message: 'price must be a number with at most two decimal places' })
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
  @MaxCharacters(100)
  @NotNull()
  name?: string;

  @Field(() => Float, { nullable: true })
  @IsDecimal(2, { message: 'price must be a number with at most two decimal places' })
  @Min(0)
  @Max(MAX_TICKET_PRICE)
  @NotNull()
  price?: number;

  @Field({ nullable: true })
  @IsCurrencyCode()
  @NotNull()
  currency?: string;

  @Field(() => Int, { nullable: true, description: 'Never below the number already sold.' })
  @Min(0)
  @Max(MAX_TICKET_QUANTITY)
  @NotNull()
  quantity?: number;
}
