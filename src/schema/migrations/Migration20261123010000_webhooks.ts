import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (D18): endpoints per organization, and a transactional outbox. A change writes its message
 * and one delivery per matching endpoint in its own transaction; workers in any number of processes
 * claim due deliveries with FOR UPDATE SKIP LOCKED and record every attempt.
 */
export class Migration20261123010000_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "webhook_endpoints" ("id" varchar(40) not null, "organization_id" varchar(40) not null,
  "url" varchar(2048) not null, "description" varchar(500) null, "event_types" text[] not null default '{}',
  "enabled" boolean not null default true, "secret_ciphertext" text not null, "previous_secret_ciphertext" text null,
  "previous_secret_expires_at" timestamptz(3) null, "failing_since" timestamptz(3) null, "disabled_reason" text null,
  "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, constraint "webhook_endpoints_pkey" primary key ("id"));`);
    this.addSql(`create index "webhook_endpoints_organization_id_index" on "webhook_endpoints" ("organization_id", "created_at");`);
    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`create table "webhook_messages" ("id" varchar(40) not null, "organization_id" varchar(40) not null,
  "type" varchar(50) not null, "body" text not null, "created_at" timestamptz(3) not null, constraint "webhook_messages_pkey" primary key ("id"));`);
    this.addSql(`alter table "webhook_messages" add constraint "webhook_messages_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`create table "webhook_deliveries" ("id" bigserial, "message_id" varchar(40) not null, "endpoint_id" varchar(40) not null,
  "status" text check ("status" in ('PENDING', 'SUCCEEDED', 'FAILED')) not null default 'PENDING',
  "attempt_count" int not null default 0, "retry_index" int not null default 0,
  "next_attempt_at" timestamptz(3) not null, "locked_until" timestamptz(3) null, "last_attempt_at" timestamptz(3) null,
  "created_at" timestamptz(3) not null, constraint "webhook_deliveries_pkey" primary key ("id"),
  constraint "webhook_deliveries_message_endpoint_unique" unique ("message_id", "endpoint_id"));`);
    this.addSql(`create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'PENDING';`);
    this.addSql(`create index "webhook_deliveries_endpoint_index" on "webhook_deliveries" ("endpoint_id", "created_at");`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_message_id_foreign" foreign key ("message_id") references "webhook_messages" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on update cascade on delete cascade;`);

    this.addSql(`create table "webhook_attempts" ("id" bigserial, "delivery_id" bigint not null, "attempt_number" int not null,
  "attempted_at" timestamptz(3) not null, "status_code" int null, "duration_ms" int not null, "error" text null, "response_body" text null,
  constraint "webhook_attempts_pkey" primary key ("id"),
  constraint "webhook_attempts_delivery_attempt_unique" unique ("delivery_id", "attempt_number"));`);
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "webhook_attempts";');
    this.addSql('drop table if exists "webhook_deliveries";');
    this.addSql('drop table if exists "webhook_messages";');
    this.addSql('drop table if exists "webhook_endpoints";');
  }
}
