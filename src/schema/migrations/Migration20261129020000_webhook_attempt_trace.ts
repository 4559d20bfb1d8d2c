import { Migration } from '@mikro-orm/migrations';

/**
 * D27: each webhook attempt records the id of its trace (the attempt's CLIENT span, whose
 * `traceparent` the receiver got), null when tracing was off or the attempt was interrupted.
 */
export class Migration20261129020000_webhook_attempt_trace extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_attempts" add column "trace_id" varchar(32) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_attempts" drop column "trace_id";`);
  }
}
