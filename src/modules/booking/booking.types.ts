import { Field, Int, ObjectType } from 'type-graphql';
import { BookingEntity } from './booking.entity';

@ObjectType('BookingList', { description: 'One page of bookings, newest first.' })
export class BookingList {
  @Field(() => [BookingEntity])
  bookings!: BookingEntity[];

  @Field(() => Int, { description: 'Bookings matching the filter, on every page.' })
  total!: number;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  limit!: number;

  @Field(() => String, {
    nullable: true,
    description: "Pass as `after` to Query.bookings for the next page (same event and status); null on the last page. Opaque, valid for this organization and list only.",
  })
  nextCursor!: string | null;
}
