import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency-Key records (D17): one per organization and key, holding the request's fingerprint and,
 * once the operation has run, the response to replay. Kept in PostgreSQL so every instance sees them.
 */
export class Migration20261123010000_idempotency_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "idempotency_keys" (
  "organization_id" varchar(40) not null,
  "key" varchar(255) not null,
  "fingerprint" char(64) not null,
  "state" text check ("state" in ('RUNNING', 'DONE')) not null,
  "locked_until" timestamptz(3) null,
  "response_status" int null,
  "response_headers" jsonb null,
  "response_body" text null,
  "created_at" timestamptz(3) not null default now(),
  "expires_at" timestamptz(3) not null,
  constraint "idempotency_keys_pkey" primary key ("organization_id", "key"),
  constraint "idempotency_keys_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade
);`);
    this.addSql('create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "idempotency_keys";');
  }
}
