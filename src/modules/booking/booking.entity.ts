import { Check, Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { newId } from '../../foundation/ids';
import { EventEntity } from '../event/event.entity';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';

export enum BookingStatus {
  HELD = 'HELD',
  CONFIRMED = 'CONFIRMED',
  CANCELLED = 'CANCELLED',
  EXPIRED = 'EXPIRED',
}

registerEnumType(BookingStatus, {
  name: 'BookingStatus',
  description:
    'HELD bookings take their seats until expiresAt, then read EXPIRED unless confirmed; CONFIRMED bookings keep their seats; CANCELLED and EXPIRED ones have given them back (D20).',
});

/**
 * A booking's status as clients read it: a HELD booking past its `expiresAt` is EXPIRED from that
 * moment on, whether or not the expiry sweep has stored it yet (D20). Pure.
 */
export function effectiveBookingStatus(booking: { status: BookingStatus; expiresAt: Date | null }, now: Date = new Date()): BookingStatus {
  return booking.status === BookingStatus.HELD && booking.expiresAt !== null && booking.expiresAt <= now ? BookingStatus.EXPIRED : booking.status;
}

/** A booking's id: bk_ and an opaque part (a command may make it before the row, see create-booking.ts). */
export const newBookingId = (): string => newId('bk');

@ObjectType('Booking', { description: 'Seats booked on an event, optionally of one ticket type.' })
@Entity({ tableName: 'bookings' })
@Index({ name: 'bookings_event_id_status_index', properties: ['event', 'status'] })
@Check({ name: 'bookings_quantity_check', expression: 'quantity >= 1' })
export class BookingEntity {
  [OptionalProps]?: 'id' | 'ticketType' | 'status' | 'createdAt' | 'cancelledAt' | 'slot' | 'expiresAt' | 'confirmedAt' | 'checkedInAt' | 'ticketCodeSealed';

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

  /** As stored; clients read effectiveBookingStatus (the GraphQL field resolves through it). */
  @Enum({ items: () => BookingStatus })
  status: BookingStatus = BookingStatus.CONFIRMED;

  @Field(() => GraphQLDateTimeISO)
  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  /** The inventory slot its seats are counted in (src/modules/inventory/); null when counted on the event's row. */
  @Property({ type: 'smallint', nullable: true })
  slot: number | null = null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'When the booking was cancelled; null unless CANCELLED.' })
  @Property({ type: 'timestamptz', length: 3, nullable: true })
  cancelledAt: Date | null = null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'When a hold ends (D20); null unless the booking was made as a hold.' })
  @Property({ type: 'timestamptz', length: 3, nullable: true })
  expiresAt: Date | null = null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'When a hold was confirmed; null for a booking confirmed when made, and while HELD.' })
  @Property({ type: 'timestamptz', length: 3, nullable: true })
  confirmedAt: Date | null = null;

  @Field(() => GraphQLDateTimeISO, { nullable: true, description: 'When the attendee was checked in at the door (D22); null until then.' })
  @Property({ type: 'timestamptz', length: 3, nullable: true })
  checkedInAt: Date | null = null;

  /**
   * Its ticket code (D29) sealed with the server secret (src/platform/crypto/ticket-codes.ts); null
   * while it has none (a hold, until confirmed). Booking.ticketCode opens it; its look-up hash is a
   * column only the statements read (`ticket_code_hash`).
   */
  @Property({ type: 'text', nullable: true })
  ticketCodeSealed: string | null = null;

  /**
   * Not a column: the ticket code in clear when the command that issued it holds it (a booking just
   * confirmed or transferred), so that its answer opens nothing; else Booking.ticketCode opens the
   * sealed one.
   */
  declare ticketCode?: string | null;

  /**
   * Not a column: the event's slug when the booking's own statement read it (a booking just made), so
   * that its answer needs no read of the event (the resolver's eventSlug).
   */
  declare eventSlug?: string;
}
