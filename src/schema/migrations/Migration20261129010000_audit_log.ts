import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log (D26): who changed what, one row per audited change, written in the change's own
 * transaction (src/platform/audit/audit-log.ts). Entries are never edited: a trigger refuses every
 * UPDATE, and every DELETE of an entry younger than the 400 days it is kept (the retention job,
 * src/modules/audit/audit.retention.ts, deletes only older ones). No foreign keys: an entry outlives
 * the member, key, endpoint or event it names.
 *
 * The primary key leads with organization_id, like every organization table's (D25). Indexes: an organization's entries newest first (the list, its pages and cursors), the same by
 * action (the dashboard's filter), and by creation time alone (the retention job's oldest-first scan).
 */
export class Migration20261129010000_audit_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "audit_log" (
      "id" varchar(40) not null,
      "organization_id" varchar(40) not null,
      "action" varchar(64) not null,
      "actor_kind" text not null,
      "actor_id" varchar(40) null,
      "actor_label" varchar(254) not null,
      "target_id" varchar(254) not null,
      "summary" jsonb not null default '{}'::jsonb,
      "client_ip" varchar(64) null,
      "request_id" varchar(200) null,
      "created_at" timestamptz(3) not null default now(),
      constraint "audit_log_pkey" primary key ("organization_id", "id"),
      constraint "audit_log_actor_kind_check" check ("actor_kind" in ('MEMBER', 'API_KEY', 'CLI', 'SYSTEM'))
    );`);
    this.addSql(`create index "audit_log_organization_created_index" on "audit_log" ("organization_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "audit_log_organization_action_index" on "audit_log" ("organization_id", "action", "created_at" desc, "id" desc);`);
    this.addSql(`create index "audit_log_created_at_index" on "audit_log" ("created_at");`);
    this.addSql(`create function audit_log_append_only() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' then
          raise exception 'audit_log entries are never edited (D26)' using errcode = 'insufficient_privilege';
        end if;
        if old.created_at >= now() - interval '400 days' then
          raise exception 'audit_log entries are kept 400 days (D26)' using errcode = 'insufficient_privilege';
        end if;
        return old;
      end $$;`);
    this.addSql(`create trigger "audit_log_append_only" before update or delete on "audit_log"
      for each row execute function audit_log_append_only();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "audit_log" cascade;`);
    this.addSql(`drop function if exists audit_log_append_only();`);
  }
}
