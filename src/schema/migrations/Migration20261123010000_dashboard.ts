import { Migration } from '@mikro-orm/migrations';

/**
 * The dashboard (D19): passwords, one-time invitations, server-side sessions, sign-in failures, the
 * creator of a dashboard-made key, and the daily usage counters. Demoting or removing a key's creator
 * narrows or stops the key, so such a change is announced on the auth-change channel like a revocation.
 */
export class Migration20261123010000_dashboard extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "api_keys" add column "created_by_member_id" varchar(40) null;`);
    this.addSql(`create index "api_keys_created_by_member_id_index" on "api_keys" ("created_by_member_id");`);

    this.addSql(`create table "member_credentials" (
  "member_id" varchar(40) not null primary key references "members" ("id") on update cascade on delete cascade,
  "password_hash" text not null,
  "updated_at" timestamptz(3) not null default now());`);

    this.addSql(`create table "member_invitations" (
  "token_hash" varchar(64) not null primary key,
  "member_id" varchar(40) not null references "members" ("id") on update cascade on delete cascade,
  "created_at" timestamptz(3) not null default now(),
  "expires_at" timestamptz(3) not null);`);
    this.addSql(`create index "member_invitations_member_id_index" on "member_invitations" ("member_id");`);

    this.addSql(`create table "dashboard_sessions" (
  "id_hash" varchar(64) not null primary key,
  "member_id" varchar(40) not null references "members" ("id") on update cascade on delete cascade,
  "csrf_token" varchar(64) not null,
  "created_at" timestamptz(3) not null default now(),
  "last_seen_at" timestamptz(3) not null default now(),
  "expires_at" timestamptz(3) not null);`);
    this.addSql(`create index "dashboard_sessions_member_id_index" on "dashboard_sessions" ("member_id");`);

    this.addSql(`create table "sign_in_failures" (
  "id" bigserial primary key,
  "email" varchar(254) not null,
  "ip" varchar(64) not null,
  "at" timestamptz(3) not null default now());`);
    this.addSql(`create index "sign_in_failures_email_at_index" on "sign_in_failures" ("email", "at");`);
    this.addSql(`create index "sign_in_failures_ip_at_index" on "sign_in_failures" ("ip", "at");`);

    this.addSql(`create table "api_key_usage_daily" (
  "api_key_id" varchar(40) not null references "api_keys" ("id") on update cascade on delete cascade,
  "organization_id" varchar(40) not null references "organizations" ("id") on update cascade on delete cascade,
  "day" date not null,
  "requests" bigint not null default 0,
  "rate_limited" bigint not null default 0,
  primary key ("api_key_id", "day"));`);
    this.addSql(`create index "api_key_usage_daily_organization_id_day_index" on "api_key_usage_daily" ("organization_id", "day");`);

    this.addSql(`create or replace function event_service_notify_member_change() returns trigger language plpgsql as $$
declare
  ids json;
begin
  select json_agg(id) into ids from api_keys where created_by_member_id = old.id;
  if ids is not null then
    perform pg_notify('event_service_auth_change', json_build_object('apiKeyIds', ids)::text);
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger members_auth_change after update on "members" for each row
when (old.role is distinct from new.role or old.organization_id is distinct from new.organization_id)
execute function event_service_notify_member_change();`);
    this.addSql(`create trigger members_auth_delete after delete on "members" for each row
execute function event_service_notify_member_change();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists members_auth_delete on "members";');
    this.addSql('drop trigger if exists members_auth_change on "members";');
    this.addSql('drop function if exists event_service_notify_member_change();');
    this.addSql('drop table if exists "api_key_usage_daily";');
    this.addSql('drop table if exists "sign_in_failures";');
    this.addSql('drop table if exists "dashboard_sessions";');
    this.addSql('drop table if exists "member_invitations";');
    this.addSql('drop table if exists "member_credentials";');
    this.addSql('drop index if exists "api_keys_created_by_member_id_index";');
    this.addSql('alter table "api_keys" drop column if exists "created_by_member_id";');
  }
}
