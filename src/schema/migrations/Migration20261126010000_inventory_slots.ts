import { Migration } from '@mikro-orm/migrations';

/**
 * Inventory slots for hot events (D7, src/modules/inventory/). A slotted event (`events.slots`
 * > 0) keeps its seats and each ticket type's tickets split over `slots` rows each, claimed by
 * bookings without waiting on each other; its counts are the row's plus the sum of its slots' `taken`
 * (`registration_count` and `sold` keep what was counted before the event was slotted). `seats` is a
 * slot's share (null: no limit), `open` whether the event takes bookings (set with its status, under
 * the locks of every slot). The CHECKs are the backstop of "never oversell": no slot takes more than
 * its share, and the shares add up to what is left (kept by the commands that move them).
 */
export class Migration20261126010000_inventory_slots extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "slots" smallint not null default 0;`);
    this.addSql(`alter table "ticket_types" add column "slots" smallint not null default 0;`);
    this.addSql(`create table "event_slots" (
  "event_id" varchar(40) not null references "events" ("id") on update cascade on delete cascade,
  "slot" smallint not null,
  "seats" int null,
  "taken" int not null default 0,
  "open" boolean not null,
  constraint "event_slots_pkey" primary key ("event_id", "slot"),
  constraint "event_slots_taken_check" check (taken >= 0 and (seats is null or taken <= seats)));`);
    this.addSql(`create table "ticket_type_slots" (
  "ticket_type_id" varchar(40) not null references "ticket_types" ("id") on update cascade on delete cascade,
  "slot" smallint not null,
  "seats" int not null,
  "taken" int not null default 0,
  constraint "ticket_type_slots_pkey" primary key ("ticket_type_id", "slot"),
  constraint "ticket_type_slots_taken_check" check (taken >= 0 and taken <= seats));`);
    this.addSql(`alter table "bookings" add column "slot" smallint null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "bookings" drop column "slot";`);
    this.addSql(`drop table "ticket_type_slots";`);
    this.addSql(`drop table "event_slots";`);
    this.addSql(`alter table "ticket_types" drop column "slots";`);
    this.addSql(`alter table "events" drop column "slots";`);
  }
}
