import { Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { registerEnumType } from 'type-graphql';
import { newId } from '../../foundation/ids';
import { BookingEntity } from '../booking/booking.entity';
import { EventEntity } from '../event/event.entity';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';

export enum WaitlistStatus {
  WAITING = 'WAITING',
  OFFERED = 'OFFERED',
  CONVERTED = 'CONVERTED',
  EXPIRED = 'EXPIRED',
  LEFT = 'LEFT',
}

registerEnumType(WaitlistStatus, {
  name: 'WaitlistStatus',
  description:
    'WAITING in join order; OFFERED: seats came free and are held for it (offeredBookingId, a HELD booking); CONVERTED: that booking was confirmed; EXPIRED: the offer lapsed or was cancelled, its seats offered on; LEFT: leaveWaitlist (D21).',
});

/** A waiting-list entry's id: wl_ and an opaque part. */
export const newWaitlistEntryId = (): string => newId('wl');

/**
 * One waiting-list entry (D21), as stored. The service reads and changes entries with fixed SQL
 * (waitlist.repository.ts, under the event's locks); the entity gives the ORM the table's shape.
 */
@Entity({ tableName: 'waitlist_entries' })
@Index({ name: 'waitlist_entries_event_index', properties: ['event', 'createdAt', 'id'] })
export class WaitlistEntryEntity {
  [OptionalProps]?: 'id' | 'ticketType' | 'status' | 'createdAt' | 'offeredBooking' | 'offeredAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newWaitlistEntryId();

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade', index: true })
  organization!: Ref<OrganizationEntity>;

  @ManyToOne(() => EventEntity, { ref: true, deleteRule: 'cascade' })
  event!: Ref<EventEntity>;

  @ManyToOne(() => TicketTypeEntity, { ref: true, nullable: true, deleteRule: 'set null' })
  ticketType: Ref<TicketTypeEntity> | null = null;

  @Property({ type: 'integer' })
  quantity!: number;

  @Property({ type: 'string', length: 254 })
  attendeeEmail!: string;

  @Property({ type: 'string', length: 200 })
  attendeeName!: string;

  @Enum({ items: () => WaitlistStatus })
  status: WaitlistStatus = WaitlistStatus.WAITING;

  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  /** The HELD booking its offer made (OFFERED, and kept after: CONVERTED, EXPIRED, LEFT). */
  @ManyToOne(() => BookingEntity, { ref: true, nullable: true, deleteRule: 'set null' })
  offeredBooking: Ref<BookingEntity> | null = null;

  @Property({ type: 'timestamptz', length: 3, nullable: true })
  offeredAt: Date | null = null;

  @Property({ type: 'timestamptz', length: 3 })
  updatedAt: Date = new Date();
}
