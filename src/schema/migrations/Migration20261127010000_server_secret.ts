import { Migration } from '@mikro-orm/migrations';

/**
 * The server secret's fingerprint (D24): one row, written by the first server start (and moved by
 * `admin secret rotate`). A server or CLI whose secret has another fingerprint refuses to start. The
 * fingerprint is HKDF-derived with its own label: it reveals neither the secret nor a key.
 */
export class Migration20261127010000_server_secret extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "server_secret" (
  "id" smallint not null default 1 check ("id" = 1),
  "fingerprint" char(64) not null,
  "recorded_at" timestamptz(3) not null default now(),
  "rotated_at" timestamptz(3) null,
  constraint "server_secret_pkey" primary key ("id")
);`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "server_secret";');
  }
}
