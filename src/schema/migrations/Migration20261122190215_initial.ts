import { Migration } from '@mikro-orm/migrations';

export class Migration20261122190215_initial extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "organizations" ("id" varchar(40) not null, "name" text not null, "timezone" text not null default 'UTC', "plan" text check ("plan" in ('STANDARD', 'ENTERPRISE')) not null default 'STANDARD', "allowed_ips" text[] not null, "restriction_mode" text check ("restriction_mode" in ('OFF', 'STRICT')) not null default 'OFF', "rate_limit_per_minute" int null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, constraint "organizations_pkey" primary key ("id"));`);

    this.addSql(`create table "members" ("id" varchar(40) not null, "organization_id" varchar(40) not null, "email" varchar(254) not null, "name" varchar(200) not null, "role" text check ("role" in ('ADMIN', 'MEMBER')) not null default 'MEMBER', "created_at" timestamptz(3) not null, constraint "members_pkey" primary key ("id"));`);
    this.addSql(`alter table "members" add constraint "members_organization_id_email_unique" unique ("organization_id", "email");`);

    this.addSql(`create table "events" ("id" varchar(40) not null, "organization_id" varchar(40) not null, "slug" varchar(100) not null, "title" varchar(200) not null, "description" text null, "start_date" timestamptz(3) not null, "end_date" timestamptz(3) not null, "timezone" text not null, "venue" varchar(300) null, "venue_address" text null, "cover_image" text null, "status" text check ("status" in ('DRAFT', 'PUBLISHED', 'CANCELLED', 'COMPLETED')) not null default 'DRAFT', "capacity" int null, "registration_count" int not null default 0, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, constraint "events_pkey" primary key ("id"));`);
    this.addSql(`create index "events_organization_id_created_at_index" on "events" ("organization_id", "created_at", "id");`);
    this.addSql(`alter table "events" add constraint "events_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(`create table "api_keys" ("id" varchar(40) not null, "organization_id" varchar(40) not null, "name" text not null, "environment" text check ("environment" in ('live', 'test')) not null, "prefix" varchar(16) not null, "key_hash" varchar(64) not null, "permissions" text[] not null, "created_at" timestamptz(3) not null, "expires_at" timestamptz(3) null, "last_used_at" timestamptz(3) null, "revoked_at" timestamptz(3) null, constraint "api_keys_pkey" primary key ("id"));`);
    this.addSql(`create index "api_keys_organization_id_index" on "api_keys" ("organization_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(`create table "ticket_types" ("id" varchar(40) not null, "event_id" varchar(40) not null, "name" varchar(100) not null, "price" numeric(12,2) not null, "currency" varchar(3) not null, "quantity" int not null, "sold" int not null default 0, "created_at" timestamptz(3) not null, constraint "ticket_types_pkey" primary key ("id"));`);
    this.addSql(`create index "ticket_types_event_id_index" on "ticket_types" ("event_id");`);

    this.addSql(`create table "bookings" ("id" varchar(40) not null, "organization_id" varchar(40) not null, "event_id" varchar(40) not null, "ticket_type_id" varchar(40) null, "quantity" int not null, "attendee_email" varchar(254) not null, "attendee_name" varchar(200) not null, "status" text check ("status" in ('CONFIRMED', 'CANCELLED')) not null default 'CONFIRMED', "created_at" timestamptz(3) not null, "cancelled_at" timestamptz(3) null, constraint "bookings_pkey" primary key ("id"));`);
    this.addSql(`create index "bookings_organization_id_index" on "bookings" ("organization_id");`);
    this.addSql(`create index "bookings_ticket_type_id_index" on "bookings" ("ticket_type_id");`);
    this.addSql(`create index "bookings_event_id_status_index" on "bookings" ("event_id", "status");`);

    this.addSql(`alter table "members" add constraint "members_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "events" add constraint "events_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "ticket_types" add constraint "ticket_types_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "bookings" add constraint "bookings_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "bookings" add constraint "bookings_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "bookings" add constraint "bookings_ticket_type_id_foreign" foreign key ("ticket_type_id") references "ticket_types" ("id") on update cascade on delete restrict;`);
  }

}
