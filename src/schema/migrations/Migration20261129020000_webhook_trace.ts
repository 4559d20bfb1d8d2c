import { Migration } from '@mikro-orm/migrations';

/**
 * D27: a webhook message keeps the traceparent of the change that wrote it (its attempts continue
 * that trace), and each attempt records the id of its trace (the attempt's CLIENT span, whose
 * `traceparent` the receiver got); both null when tracing was off (an interrupted attempt has none).
 */
export class Migration20261129020000_webhook_trace extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_messages" add column "trace_parent" varchar(55) null;`);
    this.addSql(`alter table "webhook_attempts" add column "trace_id" varchar(32) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_attempts" drop column "trace_id";`);
    this.addSql(`alter table "webhook_messages" drop column "trace_parent";`);
  }
}
