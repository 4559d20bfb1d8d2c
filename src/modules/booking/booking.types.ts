import { Field, ObjectType } from 'type-graphql';
import { ListPage } from '../../platform/graphql/list-page';
import { BookingEntity } from './booking.entity';

@ObjectType('BookingList', { description: 'One page of bookings, newest first.' })
export class BookingList extends ListPage {
  @Field(() => [BookingEntity])
  bookings!: BookingEntity[];
}
