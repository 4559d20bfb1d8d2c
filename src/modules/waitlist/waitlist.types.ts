import { GraphQLDateTimeISO } from 'graphql-scalars';
import { ListPage } from '../../platform/graphql/list-page';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { SeatsRequestInput } from '../booking/booking.inputs';
import { WaitlistStatus } from './waitlist-entry.entity';

@InputType('JoinWaitlistInput', {
  description: 'Who waits for which seats: the same fields and rules as CreateBookingInput (without hold).',
})
export class JoinWaitlistInput extends SeatsRequestInput {}

@ObjectType('WaitlistEntry', { description: 'Someone waiting for seats of a sold-out event (D21).' })
export class WaitlistEntry {
  @Field(() => ID, { description: 'wl_ followed by an opaque part.' })
  id!: string;

  @Field({ description: 'The event, evt_….' })
  eventId!: string;

  @Field()
  eventSlug!: string;

  @Field(() => ID, { nullable: true, description: 'The ticket type waited for; null: any seat of the event.' })
  ticketTypeId!: string | null;

  @Field(() => Int)
  quantity!: number;

  @Field()
  attendeeEmail!: string;

  @Field()
  attendeeName!: string;

  @Field(() => WaitlistStatus, { description: 'An OFFERED entry whose offer is past its expiresAt reads EXPIRED from then on.' })
  status!: WaitlistStatus;

  @Field(() => Int, {
    nullable: true,
    description: 'Place among the WAITING entries of the event in join order (1 = next); null unless WAITING.',
  })
  position!: number | null;

  @Field(() => GraphQLDateTimeISO, { description: 'When it joined: the join order.' })
  createdAt!: Date;

  @Field(() => String, { nullable: true, description: 'The HELD booking offered to it (bk_…); null while WAITING.' })
  offeredBookingId!: string | null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'When the seats were offered.' })
  offeredAt!: Date | null;

  @Field(() => GraphQLDateTimeISO, {
    nullable: true,
    description: "When the offer lapses unless confirmBooking confirms the offered booking (its expiresAt: the organization's waitlistOfferMinutes after offeredAt).",
  })
  offerExpiresAt!: Date | null;
}

@ObjectType('WaitlistPage', { description: "One page of an event's waiting list, in join order." })
export class WaitlistPage extends ListPage {
  @Field(() => [WaitlistEntry])
  entries!: WaitlistEntry[];
}
