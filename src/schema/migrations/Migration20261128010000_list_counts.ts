import { Migration } from '@mikro-orm/migrations';

/**
 * Constant-time list totals (D25). `event_counts` keeps, per organization, how many events are
 * stored in each status, in the same transaction as every write that changes it: triggers on `events`
 * (statement-level for inserts and deletes, so a bulk load or a cascade costs one counter update per
 * statement; row-level for a status change, fired only by an UPDATE that sets `status` and changes it,
 * so the booking statements that update `events.registration_count` never touch it). Each
 * organization's count is spread over up to 32 rows (by a hash of the event id) so that concurrent
 * creates rarely wait for each other; a statement locks its rows in (organization, shard) order. The
 * total is the sum of an organization's rows. The migration builds the counts of existing events.
 *
 * Bookings keep no counter (see D25 in docs/decisions/): their list total is an index-only count
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
    const byStatus = (status: string) => `count(*) filter (where status = '${status}')`;
    const grouped = (table: string) => `select organization_id, ${SHARD('id')} as shard,
        ${byStatus('DRAFT')} as draft, ${byStatus('PUBLISHED')} as published, ${byStatus('CANCELLED')} as cancelled, ${byStatus('COMPLETED')} as completed
      from ${table} group by 1, 2 order by 1, 2`;
    // Inserted events belong to existing organizations (their foreign key): upsert their rows, in key order.
    this.addSql(`create function event_counts_inserted() returns trigger language plpgsql as $$
      begin
        insert into event_counts as c (organization_id, shard, draft, published, cancelled, completed)
        ${grouped('inserted_events')}
        on conflict (organization_id, shard) do update set
          draft = c.draft + excluded.draft, published = c.published + excluded.published,
          cancelled = c.cancelled + excluded.cancelled, completed = c.completed + excluded.completed;
        return null;
      end $$;`);
    // A deleted organization's rows are gone with it (cascade): the update then finds nothing to change.
    this.addSql(`create function event_counts_deleted() returns trigger language plpgsql as $$
      begin
        update event_counts c set draft = c.draft - d.draft, published = c.published - d.published,
          cancelled = c.cancelled - d.cancelled, completed = c.completed - d.completed
        from (${grouped('deleted_events')}) d where c.organization_id = d.organization_id and c.shard = d.shard;
        return null;
      end $$;`);
    // One event's status change: its own counter row, -1 in the old status and +1 in the new one.
    const delta = (row: string, sign: string) =>
      `draft = c.draft ${sign} (${row}.status = 'DRAFT')::int, published = c.published ${sign} (${row}.status = 'PUBLISHED')::int,
          cancelled = c.cancelled ${sign} (${row}.status = 'CANCELLED')::int, completed = c.completed ${sign} (${row}.status = 'COMPLETED')::int`;
    this.addSql(`create function event_counts_changed() returns trigger language plpgsql as $$
      begin
        update event_counts c set ${delta('old', '-')} where c.organization_id = old.organization_id and c.shard = ${SHARD('old.id')};
        insert into event_counts as c (organization_id, shard, draft, published, cancelled, completed)
          values (new.organization_id, ${SHARD('new.id')}, (new.status = 'DRAFT')::int, (new.status = 'PUBLISHED')::int,
            (new.status = 'CANCELLED')::int, (new.status = 'COMPLETED')::int)
          on conflict (organization_id, shard) do update set ${delta('new', '+')};
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
    this.addSql('drop table if exists "event_counts";');
  }
}
