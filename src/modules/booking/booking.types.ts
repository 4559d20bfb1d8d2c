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
}
