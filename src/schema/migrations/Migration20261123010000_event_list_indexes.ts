import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes behind the event list's filters and orders: by start date (startsAfter / startsBefore,
 * orderBy START_DATE_*), and a trigram index for the case-insensitive title search (`ilike '%…%'`).
 * pg_trgm ships with PostgreSQL's contrib and with PGlite; where it cannot be installed, search still
 * works, scanning the organization's events.
 */
export class Migration20261123010000_event_list_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "events_organization_id_start_date_index" on "events" ("organization_id", "start_date", "id");`);
    this.addSql(`do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
    create extension if not exists pg_trgm;
    create index events_title_trgm_index on events using gin (title gin_trgm_ops);
  end if;
end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "events_title_trgm_index";`);
    this.addSql(`drop index if exists "events_organization_id_start_date_index";`);
  }
}
