import { Migration } from '@mikro-orm/migrations';

/**
 * Event series (D28). `series` holds the template of its occurrences, its schedule (timezone, first
 * local start, duration, RFC 5545 lines) and its `version`; every occurrence is an event row with
 * `series_id`, `occurrence_key` (the local start the series made it for: which date of the rule it
 * is, kept when it is edited or moved on its own) and `detached` (edited on its own: series changes
 * skip it). Keys lead with organization_id and the foreign key is composite (tenant-distributable,
 * test/tenant-keys.test.ts).
 *
 * The version answers "did anything a plan depends on change since the preview?": a series change sets
 * it, and so do, through the trigger below, an occurrence's first confirmed booking or its last one
 * going (its `registration_count` leaving or reaching 0) and an occurrence becoming detached. The
 * trigger's WHEN is checked before anything runs, so a booking of an event outside a series pays
 * nothing; a booking's statement has locked the event's row before it touches the series' row, the
 * order updateSeries and deleteSeries lock them in too (occurrences, then the series).
 *
 * `series_counts` keeps each organization's number of series (D25: a list's total in constant time),
 * written by statement-level triggers in the transaction of the insert or delete.
 */
export class Migration20261130020000_series extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "series" (
      "id" varchar(40) not null,
      "organization_id" varchar(40) not null references "organizations" ("id") on delete cascade,
      "slug" varchar(100) not null,
      "title" varchar(200) not null,
      "description" text null,
      "venue" varchar(300) null,
      "venue_address" text null,
      "cover_image" text null,
      "capacity" int null,
      "ticket_types" jsonb not null default '[]',
      "timezone" text not null,
      "first_start" varchar(19) not null,
      "duration_minutes" int not null,
      "recurrence" text[] not null,
      "version" int not null default 1,
      "created_at" timestamptz(3) not null,
      "updated_at" timestamptz(3) not null,
      constraint "series_pkey" primary key ("organization_id", "id"),
      constraint "series_organization_id_slug_unique" unique ("organization_id", "slug"),
      constraint "series_duration_minutes_check" check ("duration_minutes" between 1 and 10080),
      constraint "series_version_check" check ("version" >= 1)
    );`);
    this.addSql(`create index "series_organization_id_created_at_index" on "series" ("organization_id", "created_at", "id");`);
    this.addSql(`create index "series_id_index" on "series" ("id");`);

    this.addSql(`alter table "events" add column "series_id" varchar(40) null, add column "occurrence_key" timestamp(0) null,
      add column "detached" boolean not null default false;`);
    this.addSql(`alter table "events" add constraint "events_series_id_foreign" foreign key ("organization_id", "series_id")
      references "series" ("organization_id", "id") on delete set null ("series_id");`);
    // A series' occurrences in order of their start (its occurrences page, the events list's `series` filter).
    this.addSql(`create index "events_series_start_date_index" on "events" ("organization_id", "series_id", "start_date", "id") where "series_id" is not null;`);

    this.addSql(`create function series_occurrence_changed() returns trigger language plpgsql as $$
      begin
        update series set version = version + 1 where organization_id = new.organization_id and id = new.series_id;
        return null;
      end $$;`);
    this.addSql(`create trigger series_occurrence_changed after update of "registration_count", "detached" on "events" for each row
      when (new.series_id is not null and ((old.registration_count > 0) is distinct from (new.registration_count > 0) or old.detached is distinct from new.detached))
      execute function series_occurrence_changed();`);

    this.addSql(`create table "series_counts" (
      "organization_id" varchar(40) not null references "organizations" ("id") on delete cascade,
      "total" bigint not null default 0,
      constraint "series_counts_pkey" primary key ("organization_id")
    );`);
    this.addSql(`create function series_counts_inserted() returns trigger language plpgsql as $$
      begin
        insert into series_counts as c (organization_id, total)
          select organization_id, count(*) from inserted_series group by 1 order by 1
          on conflict (organization_id) do update set total = c.total + excluded.total;
        return null;
      end $$;`);
    this.addSql(`create function series_counts_deleted() returns trigger language plpgsql as $$
      begin
        update series_counts c set total = c.total - d.total
          from (select organization_id, count(*) as total from deleted_series group by 1) d where c.organization_id = d.organization_id;
        return null;
      end $$;`);
    this.addSql(`create trigger series_counts_insert after insert on "series" referencing new table as inserted_series
      for each statement execute function series_counts_inserted();`);
    this.addSql(`create trigger series_counts_delete after delete on "series" referencing old table as deleted_series
      for each statement execute function series_counts_deleted();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists series_counts_delete on "series";');
    this.addSql('drop trigger if exists series_counts_insert on "series";');
    this.addSql('drop function if exists series_counts_deleted();');
    this.addSql('drop function if exists series_counts_inserted();');
    this.addSql('drop table if exists "series_counts";');
    this.addSql('drop trigger if exists series_occurrence_changed on "events";');
    this.addSql('drop function if exists series_occurrence_changed();');
    this.addSql('drop index if exists "events_series_start_date_index";');
    this.addSql('alter table "events" drop constraint if exists "events_series_id_foreign";');
    this.addSql('alter table "events" drop column if exists "detached", drop column if exists "occurrence_key", drop column if exists "series_id";');
    this.addSql('drop table if exists "series";');
  }
}
