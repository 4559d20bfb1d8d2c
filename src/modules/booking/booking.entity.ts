import { Check, Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { newId } from '../../foundation/ids';
import { EventEntity } from '../event/event.entity';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';

export enum BookingStatus {
  CONFIRMED = 'CONFIRMED',
  CANCELLED = 'CANCELLED',
}

registerEnumType(BookingStatus, {
  name: 'BookingStatus',
  description: 'CONFIRMED bookings hold seats; CANCELLED ones have given them back.',
});

/** A booking's id: bk_ and an opaque part (a command may make it before the row, see create-booking.ts). */
export const newBookingId = (): string => newId('bk');

@ObjectType('Booking', { description: 'Seats booked on an event, optionally of one ticket type.' })
@Entity({ tableName: 'bookings' })
@Index({ name: 'bookings_event_id_status_index', properties: ['event', 'status'] })
@Check({ name: 'bookings_quantity_check', expression: 'quantity >= 1' })
export class BookingEntity {
  [OptionalProps]?: 'id' | 'ticketType' | 'status' | 'createdAt' | 'cancelledAt' | 'slot';

  @Field(() => ID, { description: 'bk_ followed by an opaque part.' })
  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newBookingId();

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade', index: true })
  organization!: Ref<OrganizationEntity>;

  // The service refuses to delete an event with confirmed bookings; cancelled ones go with it.
  @ManyToOne(() => EventEntity, { ref: true, deleteRule: 'cascade' })
  event!: Ref<EventEntity>;

  // Only a type without sales can be removed; its cancelled bookings stay, without a type.
  @ManyToOne(() => TicketTypeEntity, { ref: true, nullable: true, deleteRule: 'set null', index: true })
  ticketType: Ref<TicketTypeEntity> | null = null;

  @Field(() => Int, { description: 'Seats booked, at least 1.' })
  @Property({ type: 'integer' })
  quantity!: number;

  @Field()
  @Property({ type: 'string', length: 254 })
  attendeeEmail!: string;

  @Field()
  @Property({ type: 'string', length: 200 })
  attendeeName!: string;

  @Field(() => BookingStatus)
  @Enum({ items: () => BookingStatus })
  status: BookingStatus = BookingStatus.CONFIRMED;

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  /** The inventory slot its seats are counted in (src/modules/inventory/); null when counted on the event's row. */
  @Property({ type: 'smallint', nullable: true })
  slot: number | null = null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'When the booking was cancelled; null while CONFIRMED.' })
  @Property({ type: 'timestamptz', length: 3, nullable: true })
  cancelledAt: Date | null = null;
}
