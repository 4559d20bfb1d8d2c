import { Check, DecimalType, Entity, Formula, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { soldSql } from '../inventory/inventory.repository';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { newId } from '../../foundation/ids';

@ObjectType('TicketType', { simpleResolvers: true })
@Entity({ tableName: 'ticket_types' })
// Backstops for the booking commands (src/modules/booking/commands/), which keep `sold` under a row lock.
@Check({ name: 'ticket_types_quantity_check', expression: 'quantity >= 0' })
@Check({ name: 'ticket_types_sold_check', expression: 'sold >= 0' })
@Check({ name: 'ticket_types_sold_quantity_check', expression: 'sold + held <= quantity' })
@Check({ name: 'ticket_types_held_check', expression: 'held >= 0' })
export class TicketTypeEntity {
  // organizationId: set by the statements that insert ticket types (the ORM only reads them, and merges rows without it).
  [OptionalProps]?: 'id' | 'sold' | 'createdAt' | 'organizationId';

  @Field(() => ID, { description: 'tt_ followed by an opaque part.' })
  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('tt');

  // The event by its entity name, typed by its id only: event.entity.ts lists its ticket types, so this
  // file names nothing of it (no import cycle). Nothing reads the event through a ticket type.
  @ManyToOne('EventEntity', { ref: true, deleteRule: 'cascade', index: true })
  event!: Ref<{ id: string }>;

  /** Its event's organization: every organization table carries it, and its keys lead with it (D25: distributable by tenant). */
  @Property({ type: 'string', length: 40 })
  organizationId!: string;

  @Field()
  @Property({ type: 'string', length: 100 })
  name!: string;

  /** numeric(12,2) in PostgreSQL, so a price is kept exactly; a JSON number out. */
  @Field(() => Float)
  @Property({ type: new DecimalType('number'), precision: 12, scale: 2 })
  price!: number;

  @Field({ description: 'ISO 4217 currency code.' })
  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Field(() => Int, { description: 'Tickets available in total.' })
  @Property({ type: 'integer' })
  quantity!: number;

  /** The row's count plus its inventory slots' (src/modules/inventory/); only the booking statements change it. */
  @Field(() => Int, { description: 'Tickets sold (confirmed bookings).' })
  @Formula((table) => soldSql(String(table)))
  sold: number = 0;

  @Property({ type: 'timestamptz', length: 3 })
  createdAt: Date = new Date();

  /**
   * Tickets held now (D20), where the statement that made this entity counted them (an event's create
   * or update), else undefined (TicketType.held reads it). Not the column `held`, which stores held
   * tickets until the expiry sweep gives them back (inventory.repository.ts typeHeldSql).
   */
  held?: number;
}
