import { Migration } from '@mikro-orm/migrations';

/**
 * The booking lifecycle (D20 holds, D22 check-in): a booking may be HELD until `expires_at`
 * (its seats taken meanwhile), then CONFIRMED (`confirmed_at`) or EXPIRED; a confirmed booking may be
 * checked in (`checked_in_at`). Held seats are counted apart from confirmed ones: `held_count` on an
 * event's row and `held` on a ticket type's (events that keep their counts on their rows), `held` on
 * each inventory slot, whose `taken` counts held and confirmed seats alike (a slot's room stays
 * `seats - taken`). The CHECKs are the backstop of "never oversell": confirmed and held together never
 * pass the capacity or the quantity. Organizations get their hold and waiting-list offer windows.
 */
export class Migration20261126040000_booking_holds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "bookings" drop constraint "bookings_status_check";`);
    this.addSql(`alter table "bookings" add constraint "bookings_status_check" check ("status" in ('HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED'));`);
    this.addSql(`alter table "bookings" add column "expires_at" timestamptz(3) null, add column "confirmed_at" timestamptz(3) null, add column "checked_in_at" timestamptz(3) null;`);
    this.addSql(`alter table "bookings" add constraint "bookings_held_expires_check" check ("status" <> 'HELD' or "expires_at" is not null);`);
    // Holds due to expire, per event (the counts that leave them out) and overall (the expiry sweep).
    this.addSql(`create index "bookings_held_event_expires_index" on "bookings" ("event_id", "expires_at") where "status" = 'HELD';`);
    this.addSql(`create index "bookings_held_expires_index" on "bookings" ("expires_at") where "status" = 'HELD';`);
    this.addSql(`create index "bookings_checked_in_event_index" on "bookings" ("event_id") where "checked_in_at" is not null;`);

    this.addSql(`alter table "events" add column "held_count" int not null default 0;`);
    this.addSql(`alter table "events" add constraint "events_held_count_check" check ("held_count" >= 0);`);
    this.addSql(`alter table "events" drop constraint "events_registration_count_capacity_check";`);
    this.addSql(`alter table "events" add constraint "events_registration_count_capacity_check" check ("capacity" is null or "registration_count" + "held_count" <= "capacity");`);
    this.addSql(`alter table "ticket_types" add column "held" int not null default 0;`);
    this.addSql(`alter table "ticket_types" add constraint "ticket_types_held_check" check ("held" >= 0);`);
    this.addSql(`alter table "ticket_types" drop constraint "ticket_types_sold_quantity_check";`);
    this.addSql(`alter table "ticket_types" add constraint "ticket_types_sold_quantity_check" check ("sold" + "held" <= "quantity");`);
    this.addSql(`alter table "event_slots" add column "held" int not null default 0;`);
    this.addSql(`alter table "event_slots" add constraint "event_slots_held_check" check ("held" >= 0 and "held" <= "taken");`);
    this.addSql(`alter table "ticket_type_slots" add column "held" int not null default 0;`);
    this.addSql(`alter table "ticket_type_slots" add constraint "ticket_type_slots_held_check" check ("held" >= 0 and "held" <= "taken");`);

    this.addSql(`alter table "organizations" add column "hold_minutes" int not null default 15, add column "waitlist_offer_minutes" int not null default 60;`);
    this.addSql(`alter table "organizations" add constraint "organizations_hold_minutes_check" check ("hold_minutes" between 1 and 1440);`);
    this.addSql(`alter table "organizations" add constraint "organizations_waitlist_offer_minutes_check" check ("waitlist_offer_minutes" between 1 and 1440);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "organizations" drop column "hold_minutes", drop column "waitlist_offer_minutes";`);
    this.addSql(`alter table "ticket_type_slots" drop column "held";`);
    this.addSql(`alter table "event_slots" drop column "held";`);
    this.addSql(`alter table "ticket_types" drop constraint "ticket_types_sold_quantity_check";`);
    this.addSql(`alter table "ticket_types" add constraint "ticket_types_sold_quantity_check" check ("sold" <= "quantity");`);
    this.addSql(`alter table "ticket_types" drop column "held";`);
    this.addSql(`alter table "events" drop constraint "events_registration_count_capacity_check";`);
    this.addSql(`alter table "events" add constraint "events_registration_count_capacity_check" check ("capacity" is null or "registration_count" <= "capacity");`);
    this.addSql(`alter table "events" drop column "held_count";`);
    this.addSql(`drop index "bookings_checked_in_event_index";`);
    this.addSql(`drop index "bookings_held_expires_index";`);
    this.addSql(`drop index "bookings_held_event_expires_index";`);
    this.addSql(`alter table "bookings" drop constraint "bookings_held_expires_check";`);
    this.addSql(`alter table "bookings" drop column "expires_at", drop column "confirmed_at", drop column "checked_in_at";`);
    this.addSql(`alter table "bookings" drop constraint "bookings_status_check";`);
    this.addSql(`alter table "bookings" add constraint "bookings_status_check" check ("status" in ('CONFIRMED', 'CANCELLED'));`);
  }
}
