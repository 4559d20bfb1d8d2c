import { Migration } from '@mikro-orm/migrations';

/**
 * Tenant-distributable keys (D25; docs/operating.md "Distributing by tenant (Citus)"). Every
 * table that belongs to an organization carries `organization_id`, its primary key and unique keys lead
 * with it, and its foreign keys to other organization tables include it: what a distribution by
 * organization (co-located shards) needs. Converts existing data in place: the columns added to
 * ticket_types, their slots, the event slots, webhook deliveries and attempts, and the member's
 * credentials, invitations and sessions are filled from the row they belong to.
 *
 * Constraint names are kept (only their columns change). The plain `(organization_id)` indexes of
 * bookings, waitlist_entries and api_keys go (the primary key now leads with it); a plain `(id)` index
 * is added where rows are found or joined by id alone (a booking's event, a delivery's message...), so
 * those reads keep an index; they are the statements a distributed deployment adds organization_id to.
 * The global lookups keep their unique index: api_keys (key_hash), member_invitations (token_hash),
 * dashboard_sessions (id_hash) (test/tenant-keys.test.ts lists them, and why).
 */

/** Tables given organization_id, from the row each belongs to (in this order: ticket_type_slots reads ticket_types). */
const FILLED: ReadonlyArray<readonly [table: string, from: string]> = [
  ['ticket_types', `update ticket_types t set organization_id = e.organization_id from events e where e.id = t.event_id`],
  ['event_slots', `update event_slots s set organization_id = e.organization_id from events e where e.id = s.event_id`],
  ['ticket_type_slots', `update ticket_type_slots s set organization_id = t.organization_id from ticket_types t where t.id = s.ticket_type_id`],
  ['webhook_deliveries', `update webhook_deliveries d set organization_id = m.organization_id from webhook_messages m where m.id = d.message_id`],
  ['webhook_attempts', `update webhook_attempts a set organization_id = d.organization_id from webhook_deliveries d where d.id = a.delivery_id`],
  ['member_credentials', `update member_credentials c set organization_id = m.organization_id from members m where m.id = c.member_id`],
  ['member_invitations', `update member_invitations i set organization_id = m.organization_id from members m where m.id = i.member_id`],
  ['dashboard_sessions', `update dashboard_sessions s set organization_id = m.organization_id from members m where m.id = s.member_id`],
];

/** Foreign keys between organization tables: name, table, columns → referenced table, columns, on delete. */
const REFERENCES: ReadonlyArray<readonly [name: string, table: string, columns: string, target: string, onDelete: string]> = [
  ['ticket_types_event_id_foreign', 'ticket_types', 'event_id', 'events', 'cascade'],
  ['bookings_event_id_foreign', 'bookings', 'event_id', 'events', 'cascade'],
  ['bookings_ticket_type_id_foreign', 'bookings', 'ticket_type_id', 'ticket_types', 'set null (ticket_type_id)'],
  ['event_slots_event_id_fkey', 'event_slots', 'event_id', 'events', 'cascade'],
  ['ticket_type_slots_ticket_type_id_fkey', 'ticket_type_slots', 'ticket_type_id', 'ticket_types', 'cascade'],
  ['waitlist_entries_event_id_foreign', 'waitlist_entries', 'event_id', 'events', 'cascade'],
  ['waitlist_entries_ticket_type_id_foreign', 'waitlist_entries', 'ticket_type_id', 'ticket_types', 'set null (ticket_type_id)'],
  ['waitlist_entries_offered_booking_id_foreign', 'waitlist_entries', 'offered_booking_id', 'bookings', 'set null (offered_booking_id)'],
  ['member_credentials_member_id_fkey', 'member_credentials', 'member_id', 'members', 'cascade'],
  ['member_invitations_member_id_fkey', 'member_invitations', 'member_id', 'members', 'cascade'],
  ['dashboard_sessions_member_id_fkey', 'dashboard_sessions', 'member_id', 'members', 'cascade'],
  ['api_key_usage_daily_api_key_id_fkey', 'api_key_usage_daily', 'api_key_id', 'api_keys', 'cascade'],
  ['webhook_deliveries_endpoint_id_foreign', 'webhook_deliveries', 'endpoint_id', 'webhook_endpoints', 'cascade'],
  ['webhook_deliveries_message_id_foreign', 'webhook_deliveries', 'message_id', 'webhook_messages', 'cascade'],
  ['webhook_attempts_delivery_id_foreign', 'webhook_attempts', 'delivery_id', 'webhook_deliveries', 'cascade'],
];

/** Primary keys, led by organization_id (the constraint keeps its name, `<table>_pkey`). */
const PRIMARY_KEYS: ReadonlyArray<readonly [table: string, columns: string, before: string]> = [
  ['events', 'organization_id, id', 'id'],
  ['ticket_types', 'organization_id, id', 'id'],
  ['bookings', 'organization_id, id', 'id'],
  ['event_slots', 'organization_id, event_id, slot', 'event_id, slot'],
  ['ticket_type_slots', 'organization_id, ticket_type_id, slot', 'ticket_type_id, slot'],
  ['waitlist_entries', 'organization_id, id', 'id'],
  ['members', 'organization_id, id', 'id'],
  ['member_credentials', 'organization_id, member_id', 'member_id'],
  ['member_invitations', 'organization_id, token_hash', 'token_hash'],
  ['dashboard_sessions', 'organization_id, id_hash', 'id_hash'],
  ['api_keys', 'organization_id, id', 'id'],
  ['api_key_usage_daily', 'organization_id, api_key_id, day', 'api_key_id, day'],
  ['webhook_endpoints', 'organization_id, id', 'id'],
  ['webhook_messages', 'organization_id, id', 'id'],
  ['webhook_deliveries', 'organization_id, id', 'id'],
  ['webhook_attempts', 'organization_id, id', 'id'],
];

/** Rows found or joined by id alone keep an index on it (see above). */
const ID_INDEXED = ['events', 'ticket_types', 'bookings', 'waitlist_entries', 'members', 'api_keys', 'webhook_endpoints', 'webhook_messages', 'webhook_deliveries'];

export class Migration20261129030000_tenant_leading_keys extends Migration {
  override async up(): Promise<void> {
    for (const [table, fill] of FILLED) {
      this.addSql(`alter table "${table}" add column "organization_id" varchar(40);`);
      this.addSql(`${fill};`);
      this.addSql(`alter table "${table}" alter column "organization_id" set not null;`);
    }
    for (const [name, table] of REFERENCES) this.addSql(`alter table "${table}" drop constraint "${name}";`);
    for (const [table, columns] of PRIMARY_KEYS) {
      this.addSql(`alter table "${table}" drop constraint "${table}_pkey", add constraint "${table}_pkey" primary key (${columns});`);
    }
    // The global lookups by a hash keep their unique index (allow-listed in test/tenant-keys.test.ts).
    this.addSql(`alter table "member_invitations" add constraint "member_invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`alter table "dashboard_sessions" add constraint "dashboard_sessions_id_hash_unique" unique ("id_hash");`);
    // Unique keys led by organization_id.
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_message_endpoint_unique",
      add constraint "webhook_deliveries_message_endpoint_unique" unique ("organization_id", "message_id", "endpoint_id");`);
    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_delivery_attempt_unique",
      add constraint "webhook_attempts_delivery_attempt_unique" unique ("organization_id", "delivery_id", "attempt_number");`);
    this.addSql(`drop index "waitlist_entries_offered_booking_index";`);
    this.addSql(`create unique index "waitlist_entries_offered_booking_index" on "waitlist_entries" ("organization_id", "offered_booking_id") where "offered_booking_id" is not null;`);
    for (const [name, table, columns, target, onDelete] of REFERENCES) {
      this.addSql(
        `alter table "${table}" add constraint "${name}" foreign key ("organization_id", "${columns}") references "${target}" ("organization_id", "id") on delete ${onDelete};`,
      );
    }
    // Lookups by id alone, and by a delivery (its attempts), keep an index; the primary key now leads with organization_id.
    for (const table of ID_INDEXED) this.addSql(`create index "${table}_id_index" on "${table}" ("id");`);
    this.addSql(`create index "webhook_attempts_delivery_id_index" on "webhook_attempts" ("delivery_id");`);
    this.addSql(`create index "member_credentials_member_id_index" on "member_credentials" ("member_id");`);
    // A booking's statement claims a slot of its event (or ticket type) by the parent's id.
    this.addSql(`create index "event_slots_event_id_index" on "event_slots" ("event_id", "slot");`);
    this.addSql(`create index "ticket_type_slots_ticket_type_id_index" on "ticket_type_slots" ("ticket_type_id", "slot");`);
    // Led by the primary key now.
    for (const table of ['bookings', 'waitlist_entries', 'api_keys']) this.addSql(`drop index "${table}_organization_id_index";`);
    // A messages page seeks on (endpoint, created_at, id) (D25 cursors).
    this.addSql(`drop index "webhook_deliveries_endpoint_index";`);
    this.addSql(`create index "webhook_deliveries_endpoint_index" on "webhook_deliveries" ("endpoint_id", "created_at", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "webhook_deliveries_endpoint_index";`);
    this.addSql(`create index "webhook_deliveries_endpoint_index" on "webhook_deliveries" ("endpoint_id", "created_at");`);
    for (const table of ['bookings', 'waitlist_entries', 'api_keys']) this.addSql(`create index "${table}_organization_id_index" on "${table}" ("organization_id");`);
    this.addSql(`drop index "member_credentials_member_id_index";`);
    this.addSql(`drop index "event_slots_event_id_index";`);
    this.addSql(`drop index "ticket_type_slots_ticket_type_id_index";`);
    this.addSql(`drop index "webhook_attempts_delivery_id_index";`);
    for (const table of ID_INDEXED) this.addSql(`drop index "${table}_id_index";`);
    for (const [name, table] of REFERENCES) this.addSql(`alter table "${table}" drop constraint "${name}";`);
    this.addSql(`drop index "waitlist_entries_offered_booking_index";`);
    this.addSql(`create unique index "waitlist_entries_offered_booking_index" on "waitlist_entries" ("offered_booking_id") where "offered_booking_id" is not null;`);
    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_delivery_attempt_unique",
      add constraint "webhook_attempts_delivery_attempt_unique" unique ("delivery_id", "attempt_number");`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_message_endpoint_unique",
      add constraint "webhook_deliveries_message_endpoint_unique" unique ("message_id", "endpoint_id");`);
    this.addSql(`alter table "dashboard_sessions" drop constraint "dashboard_sessions_id_hash_unique";`);
    this.addSql(`alter table "member_invitations" drop constraint "member_invitations_token_hash_unique";`);
    for (const [table, , before] of PRIMARY_KEYS) {
      this.addSql(`alter table "${table}" drop constraint "${table}_pkey", add constraint "${table}_pkey" primary key (${before});`);
    }
    for (const [name, table, columns, target, onDelete] of REFERENCES) {
      const rule = onDelete.startsWith('set null') ? 'set null' : onDelete;
      this.addSql(`alter table "${table}" add constraint "${name}" foreign key ("${columns}") references "${target}" ("id") on update cascade on delete ${rule};`);
    }
    for (const [table] of FILLED) this.addSql(`alter table "${table}" drop column "organization_id";`);
  }
}
