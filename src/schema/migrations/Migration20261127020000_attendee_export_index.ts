import { Migration } from '@mikro-orm/migrations';

/**
 * attendees.csv (D23) reads an event's CONFIRMED bookings in batches by (created_at, id): with this
 * index each batch is a range of the index, instead of a scan and sort of the event's bookings per batch
 * through (event_id, status) (figures: docs/performance.md).
 */
export class Migration20261127020000_attendee_export_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index if not exists "bookings_confirmed_event_created_index" on "bookings" ("event_id", "created_at", "id") where "status" = 'CONFIRMED';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists "bookings_confirmed_event_created_index";');
  }
}
