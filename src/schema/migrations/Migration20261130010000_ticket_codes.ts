import { Migration } from '@mikro-orm/migrations';

/**
 * Tickets that can change hands (D29). A CONFIRMED booking carries its ticket code, never in clear
 * (src/platform/crypto/ticket-codes.ts): `ticket_code_hash`, the code's HMAC under a key derived from
 * the server secret, which a scan finds it by (unique per organization), and `ticket_code_sealed`, the
 * code sealed with the server secret, which the API opens to show it. A code replaced by a transfer
 * (or, later, an exchange) moves to `superseded_ticket_codes` with when and why, so that a scan of it
 * answers TICKET_TRANSFERRED rather than "not found"; it stays sealed there too, so that a rotation of
 * the server secret can hash it again.
 *
 * Bookings CONFIRMED before this migration get their code from the service, which holds the secret
 * this migration does not: at each start it issues codes, in batches, to the CONFIRMED bookings that
 * have none (`bookings_confirmed_without_code_index`, empty once done; issue-missing-ticket-codes.ts).
 *
 * Organizations get `transfer_lock_minutes` (0 to 10,080, a week): transfers stop that long before an
 * event's start.
 */
export class Migration20261130010000_ticket_codes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "bookings" add column "ticket_code_hash" text null, add column "ticket_code_sealed" text null;`);
    this.addSql(`alter table "bookings" add constraint "bookings_ticket_code_check" check (("ticket_code_hash" is null) = ("ticket_code_sealed" is null));`);
    this.addSql(`create unique index "bookings_ticket_code_hash_unique" on "bookings" ("organization_id", "ticket_code_hash") where "ticket_code_hash" is not null;`);
    this.addSql(`create index "bookings_confirmed_without_code_index" on "bookings" ("organization_id", "id") where "status" = 'CONFIRMED' and "ticket_code_hash" is null;`);

    this.addSql(`create table "superseded_ticket_codes" (
      "organization_id" varchar(40) not null,
      "code_hash" text not null,
      "booking_id" varchar(40) not null,
      "sealed_code" text not null,
      "reason" text not null,
      "superseded_at" timestamptz(3) not null,
      constraint "superseded_ticket_codes_pkey" primary key ("organization_id", "code_hash"),
      constraint "superseded_ticket_codes_reason_check" check ("reason" in ('TRANSFER', 'EXCHANGE'))
    );`);
    this.addSql(`alter table "superseded_ticket_codes" add constraint "superseded_ticket_codes_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "superseded_ticket_codes" add constraint "superseded_ticket_codes_booking_id_foreign" foreign key ("organization_id", "booking_id") references "bookings" ("organization_id", "id") on update cascade on delete cascade;`);
    this.addSql(`create index "superseded_ticket_codes_booking_index" on "superseded_ticket_codes" ("organization_id", "booking_id");`);

    this.addSql(`alter table "organizations" add column "transfer_lock_minutes" int not null default 0;`);
    this.addSql(`alter table "organizations" add constraint "organizations_transfer_lock_minutes_check" check ("transfer_lock_minutes" between 0 and 10080);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "organizations" drop column "transfer_lock_minutes";`);
    this.addSql(`drop table if exists "superseded_ticket_codes" cascade;`);
    this.addSql(`drop index "bookings_confirmed_without_code_index";`);
    this.addSql(`drop index "bookings_ticket_code_hash_unique";`);
    this.addSql(`alter table "bookings" drop constraint "bookings_ticket_code_check";`);
    this.addSql(`alter table "bookings" drop column "ticket_code_hash", drop column "ticket_code_sealed";`);
  }
}
