import { Migration } from '@mikro-orm/migrations';

/**
 * The waiting list (D21): people waiting for seats of a sold-out event, in join order. When
 * seats come free they are offered to the WAITING entries as HELD bookings (`offered_booking_id`);
 * confirming the booking makes the entry CONVERTED, letting it lapse (or cancelling it) EXPIRED.
 *
 * Indexes: the WAITING entries of an event in join order (a partial index: the offer pass reads them
 * under the event's locks, and every change that frees seats first asks whether the event has any,
 * an index-only `exists`); every entry of an event in join order (the list); the entry of an offered
 * booking (the booking's confirm, cancel and expiry statements update it; unique: one offer, one booking).
 */
export class Migration20261127020000_waitlist extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "waitlist_entries" (
      "id" varchar(40) not null,
      "organization_id" varchar(40) not null,
      "event_id" varchar(40) not null,
      "ticket_type_id" varchar(40) null,
      "quantity" int not null,
      "attendee_email" varchar(254) not null,
      "attendee_name" varchar(200) not null,
      "status" text not null default 'WAITING',
      "created_at" timestamptz(3) not null,
      "offered_booking_id" varchar(40) null,
      "offered_at" timestamptz(3) null,
      "updated_at" timestamptz(3) not null,
      constraint "waitlist_entries_pkey" primary key ("id"),
      constraint "waitlist_entries_status_check" check ("status" in ('WAITING', 'OFFERED', 'CONVERTED', 'EXPIRED', 'LEFT')),
      constraint "waitlist_entries_quantity_check" check ("quantity" >= 1),
      constraint "waitlist_entries_offered_check" check ("status" = 'WAITING' or "status" = 'LEFT' or "offered_at" is not null)
    );`);
    this.addSql(`alter table "waitlist_entries" add constraint "waitlist_entries_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "waitlist_entries" add constraint "waitlist_entries_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "waitlist_entries" add constraint "waitlist_entries_ticket_type_id_foreign" foreign key ("ticket_type_id") references "ticket_types" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "waitlist_entries" add constraint "waitlist_entries_offered_booking_id_foreign" foreign key ("offered_booking_id") references "bookings" ("id") on update cascade on delete set null;`);
    this.addSql(`create index "waitlist_entries_organization_id_index" on "waitlist_entries" ("organization_id");`);
    this.addSql(`create index "waitlist_entries_waiting_index" on "waitlist_entries" ("event_id", "created_at", "id") where "status" = 'WAITING';`);
    this.addSql(`create index "waitlist_entries_event_index" on "waitlist_entries" ("event_id", "created_at", "id");`);
    this.addSql(`create unique index "waitlist_entries_offered_booking_index" on "waitlist_entries" ("offered_booking_id") where "offered_booking_id" is not null;`);
    this.addSql(`create index "waitlist_entries_ticket_type_id_index" on "waitlist_entries" ("ticket_type_id") where "ticket_type_id" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "waitlist_entries" cascade;`);
  }
}
