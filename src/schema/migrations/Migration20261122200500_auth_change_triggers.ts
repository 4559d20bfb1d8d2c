import { Migration } from '@mikro-orm/migrations';

/**
 * Every change to a key's credentials or to an organization is announced on the auth-change channel by
 * the database itself, in the changing transaction: the CLI, a script or a manual UPDATE all reach every
 * running instance's cache within a second. `last_used_at` bookkeeping is not a change worth announcing.
 */
export class Migration20261122200500_auth_change_triggers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function event_service_notify_api_key_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('event_service_auth_change', json_build_object('apiKeyIds', json_build_array(old.id))::text);
  return null;
end $$;`);
    this.addSql(`create trigger api_keys_auth_change after update on "api_keys" for each row
when ((old.revoked_at, old.expires_at, old.permissions, old.key_hash, old.organization_id)
  is distinct from (new.revoked_at, new.expires_at, new.permissions, new.key_hash, new.organization_id))
execute function event_service_notify_api_key_change();`);
    this.addSql(`create trigger api_keys_auth_delete after delete on "api_keys" for each row
execute function event_service_notify_api_key_change();`);

    this.addSql(`create or replace function event_service_notify_organization_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('event_service_auth_change', json_build_object('organizationId', old.id)::text);
  return null;
end $$;`);
    this.addSql(`create trigger organizations_auth_change after update or delete on "organizations" for each row
execute function event_service_notify_organization_change();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists organizations_auth_change on "organizations";');
    this.addSql('drop trigger if exists api_keys_auth_delete on "api_keys";');
    this.addSql('drop trigger if exists api_keys_auth_change on "api_keys";');
    this.addSql('drop function if exists event_service_notify_organization_change();');
    this.addSql('drop function if exists event_service_notify_api_key_change();');
  }
}
