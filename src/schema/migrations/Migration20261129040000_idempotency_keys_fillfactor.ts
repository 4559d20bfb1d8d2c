import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 24: an Idempotency-Key record is inserted RUNNING by its claim, then updated: with the recovery
 * point of each unit of work (a booking's by its own statement), and once its answer is stored. Those
 * updates change no indexed column, so PostgreSQL can make them HOT updates (the new version on the same
 * page, no new entry in the primary key's or expires_at's index) when the page has room: pages are
 * filled to half by inserts, leaving the other half for the updates (an answer makes a record about twice
 * its size).
 * Applies to pages written from now on.
 */
export class Migration20261129040000_idempotency_keys_fillfactor extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "idempotency_keys" set (fillfactor = 50);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "idempotency_keys" reset (fillfactor);');
  }
}
