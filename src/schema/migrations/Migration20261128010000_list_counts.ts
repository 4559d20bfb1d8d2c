import { Migration } from '@mikro-orm/migrations';

/**
 * Constant-time list totals (D25, issue 22). `event_counts` keeps, per organization, how many events are
 * stored in each status, in the same transaction as every write that changes it: triggers on `events`
 * (statement-level for inserts and deletes, so a bulk load or a cascade costs one counter update per
 * statement; row-level for a status change, fired only by an UPDATE that sets `status` and changes it,
 * so the booking statements that update `events.registration_count` never touch it). Each
 * organization's count is spread over up to 32 rows (by a hash of the event id) so that concurrent
 * creates rarely wait for each other; a statement locks its rows in (organization, shard) order. The
 * total is the sum of an organization's rows. The migration builds the counts of existing events.
 *
 * Bookings keep no counter (see docs/decisions.md, D25 notes): their list total is an index-only count
 * on (event_id, status), bounded by one event's bookings. The index below lets a bookings page (and a
 * bookings cursor) seek to its first row instead of ranking every booking of the event.
 */
/**
 * The counter row of an event among its organization's 32 rows: a hash of its id, so
 * concurrent creates of one organization mostly lock different rows (one row per organization halved
 * the rate of creates at 64 connections). Only the sum over an organization's rows means anything.
 */
const SHARD = (id: string) => `(hashtext(${id}) & 31)::smallint`;

export class Migration20261128010000_list_counts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "event_counts" (
      "organization_id" varchar(40) not null references "organizations" ("id") on delete cascade,
      "shard" smallint not null,
      "draft" bigint not null default 0,
      "published" bigint not null default 0,
      "cancelled" bigint not null default 0,
      "completed" bigint not null default 0,
      constraint "event_counts_pkey" primary key ("organization_id", "shard")
    );`);
    this.addSql(`create function event_counts_add(rows_by_status jsonb, sign int) returns void language sql as $$
      insert into event_counts as c (organization_id, shard, draft, published, cancelled, completed)
      select r.organization_id, r.shard, sign * r.draft, sign * r.published, sign * r.cancelled, sign * r.completed
      from jsonb_to_recordset(rows_by_status) as r(organization_id varchar, shard smallint, draft bigint, published bigint, cancelled bigint, completed bigint)
      where exists (select 1 from organizations o where o.id = r.organization_id)
      order by r.organization_id, r.shard
      on conflict (organization_id, shard) do update set
        draft = c.draft + excluded.draft, published = c.published + excluded.published,
        cancelled = c.cancelled + excluded.cancelled, completed = c.completed + excluded.completed
    $$;`);
    const grouped = (table: string) => `coalesce((select jsonb_agg(g) from (
        select organization_id, ${SHARD('id')} as shard,
          count(*) filter (where status = 'DRAFT') as draft, count(*) filter (where status = 'PUBLISHED') as published,
          count(*) filter (where status = 'CANCELLED') as cancelled, count(*) filter (where status = 'COMPLETED') as completed
        from ${table} group by 1, 2) g), '[]'::jsonb)`;
    this.addSql(`create function event_counts_inserted() returns trigger language plpgsql as $$
      begin perform event_counts_add(${grouped('inserted_events')}, 1); return null; end $$;`);
    this.addSql(`create function event_counts_deleted() returns trigger language plpgsql as $$
      begin perform event_counts_add(${grouped('deleted_events')}, -1); return null; end $$;`);
    this.addSql(`create function event_counts_changed() returns trigger language plpgsql as $$
      begin
        perform event_counts_add(jsonb_build_array(
          jsonb_build_object('organization_id', old.organization_id, 'shard', ${SHARD('old.id')},
            'draft', (old.status = 'DRAFT')::int, 'published', (old.status = 'PUBLISHED')::int,
            'cancelled', (old.status = 'CANCELLED')::int, 'completed', (old.status = 'COMPLETED')::int)), -1);
        perform event_counts_add(jsonb_build_array(
          jsonb_build_object('organization_id', new.organization_id, 'shard', ${SHARD('new.id')},
            'draft', (new.status = 'DRAFT')::int, 'published', (new.status = 'PUBLISHED')::int,
            'cancelled', (new.status = 'CANCELLED')::int, 'completed', (new.status = 'COMPLETED')::int)), 1);
        return null;
      end $$;`);
    this.addSql(`create trigger event_counts_insert after insert on "events" referencing new table as inserted_events
      for each statement execute function event_counts_inserted();`);
    this.addSql(`create trigger event_counts_delete after delete on "events" referencing old table as deleted_events
      for each statement execute function event_counts_deleted();`);
    this.addSql(`create trigger event_counts_update after update of "status", "organization_id" on "events" for each row
      when (old.status is distinct from new.status or old.organization_id is distinct from new.organization_id)
      execute function event_counts_changed();`);
    // The counts of the events already stored (the triggers above keep them from here on).
    this.addSql(`insert into event_counts (organization_id, shard, draft, published, cancelled, completed)
      select e.organization_id, ${SHARD('e.id')},
        count(*) filter (where e.status = 'DRAFT'), count(*) filter (where e.status = 'PUBLISHED'),
        count(*) filter (where e.status = 'CANCELLED'), count(*) filter (where e.status = 'COMPLETED')
      from events e group by 1, 2;`);
    // PUBLISHED events past their end read as COMPLETED (D3): the status filters count that part by this index.
    this.addSql(`create index "events_published_end_date_index" on "events" ("organization_id", "end_date") where "status" = 'PUBLISHED';`);
    this.addSql(`create index "bookings_event_id_created_at_index" on "bookings" ("event_id", "created_at", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists "bookings_event_id_created_at_index";');
    this.addSql('drop index if exists "events_published_end_date_index";');
    this.addSql('drop trigger if exists event_counts_update on "events";');
    this.addSql('drop trigger if exists event_counts_delete on "events";');
    this.addSql('drop trigger if exists event_counts_insert on "events";');
    this.addSql('drop function if exists event_counts_changed();');
    this.addSql('drop function if exists event_counts_deleted();');
    this.addSql('drop function if exists event_counts_inserted();');
    this.addSql('drop function if exists event_counts_add(jsonb, int);');
    this.addSql('drop table if exists "event_counts";');
  }
}
