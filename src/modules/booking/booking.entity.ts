import { Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { newId } from '../../ids';
import { EventEntity } from '../event/event.entity';
import { OrganizationEntity } from '../organization/organization.entity';
import { TicketTypeEntity } from '../ticket-type/ticket-type.entity';

export enum BookingStatus {
  CONFIRMED = 'CONFIRMED',
  CANCELLED = 'CANCELLED',
}

@Entity({ tableName: 'bookings' })
@Index({ name: 'bookings_event_id_status_index', properties: ['event', 'status'] })
export class BookingEntity {
  [OptionalProps]?: 'id' | 'ticketType' | 'status' | 'createdAt' | 'cancelledAt';

  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('bk');

  @ManyToOne(() => OrganizationEntity, { ref: true, deleteRule: 'cascade', index: true })
  organization!: Ref<OrganizationEntity>;

  // The service refuses to delete an event with confirmed bookings; cancelled ones go with it.
  @ManyToOne(() => EventEntity, { ref: true, deleteRule: 'cascade' })
  event!: Ref<EventEntity>;

  @ManyToOne(() => TicketTypeEntity, { ref: true, nullable: true, deleteRule: 'restrict', index: true })
  ticketType: Ref<TicketTypeEntity> | null = null;

  @Property({ type: 'integer' })
  quantity!: number;

  @Property({ type: 'string', length: 254 })
  attendeeEmail!: string;

  @Property({ type: 'string', length: 200 })
  attendeeName!: string;

  @Enum({ items: () => BookingStatus })
  status: BookingStatus = BookingStatus.CONFIRMED;

  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', length: 3, nullable: true })
  cancelledAt: Date | null = null;
}
