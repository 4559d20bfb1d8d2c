import { Migration } from '@mikro-orm/migrations';

/**
 * Retention (docs/operating.md "Retention"): the job deletes rows by age in small batches, oldest first; these indexes let
 * each batch find its rows without reading the table (idempotency_keys already has one on expires_at;
 * the dashboard's sessions and invitations are a few rows per member).
 */
export class Migration20261127010000_retention_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index if not exists "webhook_messages_created_at_index" on "webhook_messages" ("created_at");');
    this.addSql('create index if not exists "sign_in_failures_at_index" on "sign_in_failures" ("at");');
    this.addSql('create index if not exists "api_key_usage_daily_day_index" on "api_key_usage_daily" ("day");');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists "api_key_usage_daily_day_index";');
    this.addSql('drop index if exists "sign_in_failures_at_index";');
    this.addSql('drop index if exists "webhook_messages_created_at_index";');
  }
}
