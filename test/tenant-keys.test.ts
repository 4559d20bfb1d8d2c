import type * as MigrationsModule from '@mikro-orm/migrations';
import { useCommandDatabase } from './helpers/command-database';

// The schema stays distributable by tenant (docs/operating.md, "Distributing by tenant
// (Citus)"). Read from the migrated database's catalog, so that a table added later without
// organization_id, or with a key that does not lead with it, fails here.

/** Tables that belong to no organization, and why. Every other table must carry organization_id. */
const GLOBAL_TABLES: Readonly<Record<string, string>> = {
  organizations: 'the tenants themselves: distributed by their own id (co-located with organization_id) or a reference table',
  server_secret: "the server's secret fingerprint: one row, a reference table",
  mikro_orm_migrations: "the migrator's bookkeeping: stays on the coordinator",
  sign_in_failures: 'counted by email and IP before any organization is known: stays on the coordinator',
};

/**
 * Unique keys that do not lead with organization_id: lookups made before the organization is known.
 * Under Citus each becomes a lookup table routed by the hash (docs/operating.md); here they keep
 * their global unique index.
 */
const GLOBAL_UNIQUE_KEYS: Readonly<Record<string, string>> = {
  api_keys_key_hash_unique: 'authentication finds a key by the hash of the bearer token',
  member_invitations_token_hash_unique: 'an invitation link is opened by the hash of its token',
  dashboard_sessions_id_hash_unique: 'a dashboard request finds its session by the hash of its cookie',
};

const db = useCommandDatabase();

const query = <T extends object>(sql: string): Promise<T[]> => db.orm.em.fork().getConnection().execute<T[]>(sql);

async function tables(): Promise<Array<{ table: string; organization_id: boolean; not_null: boolean }>> {
  return query(`
    select c.relname as "table", a.attname is not null as organization_id, coalesce(a.attnotnull, false) as not_null
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      left join pg_attribute a on a.attrelid = c.oid and a.attname = 'organization_id' and not a.attisdropped
     where n.nspname = current_schema() and c.relkind in ('r', 'p')
     order by 1`);
}

/** Unique keys: primary keys, unique constraints and unique indexes, each with its columns in order. */
async function uniqueKeys(): Promise<Array<{ table: string; name: string; kind: string; columns: string[] }>> {
  return query(`
    select t.relname as "table", i.relname as name,
           case when x.indisprimary then 'primary key' else 'unique' end as kind,
           array(select a.attname::text from unnest(x.indkey) with ordinality k(attnum, ord)
                   join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.ord) as columns
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace
     where n.nspname = current_schema() and x.indisunique
     order by 1, 2`);
}

async function foreignKeys(): Promise<Array<{ table: string; name: string; columns: string[]; target: string; target_columns: string[] }>> {
  return query(`
    select t.relname as "table", c.conname as name, r.relname as target,
           array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, ord)
                   join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord) as columns,
           array(select a.attname::text from unnest(c.confkey) with ordinality k(attnum, ord)
                   join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum order by k.ord) as target_columns
      from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_class r on r.oid = c.confrelid
      join pg_namespace n on n.oid = t.relnamespace
     where n.nspname = current_schema() and c.contype = 'f'
     order by 1, 2`);
}

async function organizationTables(): Promise<Set<string>> {
  return new Set((await tables()).filter((table) => !(table.table in GLOBAL_TABLES)).map((table) => table.table));
}

test('every table is either global (listed, with a reason) or carries organization_id, NOT NULL', async () => {
  const all = await tables();
  expect(all.map((table) => table.table)).toEqual(expect.arrayContaining(Object.keys(GLOBAL_TABLES)));
  const missing = all.filter((table) => !(table.table in GLOBAL_TABLES) && !(table.organization_id && table.not_null)).map((table) => table.table);
  expect(missing).toEqual([]);
  // The ones this issue converted, so the list above cannot pass by having no tables.
  const owned = await organizationTables();
  for (const table of ['events', 'ticket_types', 'bookings', 'event_slots', 'ticket_type_slots', 'event_counts', 'waitlist_entries', 'members', 'member_credentials', 'member_invitations', 'dashboard_sessions', 'api_keys', 'api_key_usage_daily', 'idempotency_keys', 'webhook_endpoints', 'webhook_messages', 'webhook_deliveries', 'webhook_attempts']) {
    expect(owned).toContain(table);
  }
});

test("every organization table's primary key and unique keys lead with organization_id (the global lookups listed, with a reason)", async () => {
  const owned = await organizationTables();
  const keys = (await uniqueKeys()).filter((key) => owned.has(key.table));
  const primaryKeys = new Set(keys.filter((key) => key.kind === 'primary key').map((key) => key.table));
  expect([...owned].filter((table) => !primaryKeys.has(table))).toEqual([]);
  const offending = keys.filter((key) => key.columns[0] !== 'organization_id' && !(key.kind === 'unique' && key.name in GLOBAL_UNIQUE_KEYS));
  expect(offending.map((key) => `${key.table}.${key.name} (${key.columns.join(', ')})`)).toEqual([]);
  // Each allowed exception still exists (else it is stale: remove it from the list).
  expect(keys.filter((key) => key.name in GLOBAL_UNIQUE_KEYS).map((key) => key.name).sort()).toEqual(Object.keys(GLOBAL_UNIQUE_KEYS).sort());
});

test('every foreign key between organization tables includes organization_id on both sides (co-located)', async () => {
  const owned = await organizationTables();
  const keys = (await foreignKeys()).filter((key) => owned.has(key.table) && owned.has(key.target));
  expect(keys.length).toBeGreaterThan(10);
  const offending = keys.filter((key) => key.columns[0] !== 'organization_id' || key.target_columns[0] !== 'organization_id');
  expect(offending.map((key) => `${key.table}.${key.name} (${key.columns.join(', ')}) -> ${key.target} (${key.target_columns.join(', ')})`)).toEqual([]);
});

test('a row cannot point at another organization\'s row: the composite key refuses a booking of another organization\'s event', async () => {
  const connection = db.orm.em.fork().getConnection();
  await connection.execute(`insert into organizations (id, name, allowed_ips, created_at, updated_at)
    select id, 'Tenant', '{}', now(), now() from unnest(array['org_tenantkeysA0000000001', 'org_tenantkeysB0000000001']) id`);
  await connection.execute(`insert into events (id, organization_id, slug, title, start_date, end_date, timezone, status, created_at, updated_at)
    values ('evt_tenantkeys00000000001', 'org_tenantkeysA0000000001', 'tenant-keys', 'T', now(), now() + interval '1 hour', 'UTC', 'PUBLISHED', now(), now())`);
  const insertBooking = (organizationId: string) =>
    connection.execute(`insert into bookings (id, organization_id, event_id, quantity, attendee_email, attendee_name, status, created_at)
      values ('bk_tenantkeys${organizationId.slice(-13)}', '${organizationId}', 'evt_tenantkeys00000000001', 1, 'a@example.com', 'A', 'CONFIRMED', now())`);
  await expect(insertBooking('org_tenantkeysB0000000001')).rejects.toThrow(/bookings_event_id_foreign/);
  await expect(insertBooking('org_tenantkeysA0000000001')).resolves.toBeDefined();
});

/** Rows of every organization table in the schema before the migration (three organizations). */
const POPULATE = `
insert into organizations (id, name, allowed_ips, created_at, updated_at)
  select 'org_pop' || g, 'Org ' || g, '{}', now(), now() from generate_series(1, 3) g;
insert into events (id, organization_id, slug, title, start_date, end_date, timezone, status, capacity, created_at, updated_at, slots)
  select 'evt_pop' || o || '_' || g, 'org_pop' || o, 'ev-' || g, 'E', now() + interval '1 day', now() + interval '2 days', 'UTC', 'PUBLISHED', 1000, now(), now(), case when g = 1 then 16 else 0 end
  from generate_series(1, 3) o, generate_series(1, 50) g;
insert into ticket_types (id, event_id, name, price, currency, quantity, created_at, slots)
  select 'tt_pop' || o || '_' || g, 'evt_pop' || o || '_' || g, 'General', 10, 'EUR', 500, now(), case when g = 1 then 16 else 0 end
  from generate_series(1, 3) o, generate_series(1, 50) g;
insert into event_slots (event_id, slot, seats, taken, open) select 'evt_pop' || o || '_1', n, 10, 0, true from generate_series(1, 3) o, generate_series(0, 15) n;
insert into ticket_type_slots (ticket_type_id, slot, seats, taken) select 'tt_pop' || o || '_1', n, 10, 0 from generate_series(1, 3) o, generate_series(0, 15) n;
insert into bookings (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at)
  select 'bk_pop' || o || '_' || g, 'org_pop' || o, 'evt_pop' || o || '_' || (g % 50 + 1), case when g % 2 = 0 then 'tt_pop' || o || '_' || (g % 50 + 1) end,
         1, 'a@example.com', 'A', 'CONFIRMED', now() from generate_series(1, 3) o, generate_series(1, 200) g;
insert into waitlist_entries (id, organization_id, event_id, ticket_type_id, quantity, attendee_email, attendee_name, status, created_at, offered_booking_id, offered_at, updated_at)
  select 'wl_pop' || o || '_' || g, 'org_pop' || o, 'evt_pop' || o || '_2', 'tt_pop' || o || '_2', 1, 'w@example.com', 'W',
         case when g = 1 then 'OFFERED' else 'WAITING' end, now(), case when g = 1 then 'bk_pop' || o || '_1' end, case when g = 1 then now() end, now()
  from generate_series(1, 3) o, generate_series(1, 5) g;
insert into members (id, organization_id, email, name, role, created_at)
  select 'mem_pop' || o || '_' || g, 'org_pop' || o, 'm' || g || '@example.com', 'M', 'ADMIN', now() from generate_series(1, 3) o, generate_series(1, 3) g;
insert into member_credentials (member_id, password_hash, updated_at) select id, 'hash', now() from members where id like 'mem_pop%';
insert into member_invitations (token_hash, member_id, created_at, expires_at) select 'tok' || id, id, now(), now() + interval '1 day' from members where id like 'mem_pop%';
insert into dashboard_sessions (id_hash, member_id, csrf_token, created_at, last_seen_at, expires_at) select 'sess' || id, id, 'csrf', now(), now(), now() + interval '1 day' from members where id like 'mem_pop%';
insert into api_keys (id, organization_id, name, environment, prefix, key_hash, permissions, created_at)
  select 'key_pop' || o, 'org_pop' || o, 'K', 'live', 'pre' || o, 'hash' || o, '{}', now() from generate_series(1, 3) o;
insert into api_key_usage_daily (api_key_id, organization_id, day, requests, rate_limited) select 'key_pop' || o, 'org_pop' || o, current_date, 5, 0 from generate_series(1, 3) o;
insert into webhook_endpoints (id, organization_id, url, event_types, enabled, secret_ciphertext, created_at, updated_at)
  select 'whe_pop' || o, 'org_pop' || o, 'https://example.com/h', '{}', true, 'x', now(), now() from generate_series(1, 3) o;
insert into webhook_messages (id, organization_id, type, body, created_at) select 'msg_pop' || o || '_' || g, 'org_pop' || o, 't', '{}', now() from generate_series(1, 3) o, generate_series(1, 20) g;
insert into webhook_deliveries (message_id, endpoint_id, status, next_attempt_at, created_at)
  select m.id, e.id, 'FAILED', now(), now() from webhook_messages m join webhook_endpoints e on e.organization_id = m.organization_id where m.id like 'msg_pop%';
insert into webhook_attempts (delivery_id, attempt_number, attempted_at, duration_ms) select id, 0, now(), 5 from webhook_deliveries;
insert into idempotency_keys (organization_id, key, fingerprint, state, created_at, expires_at) select 'org_pop' || o, 'k', 'f', 'DONE', now(), now() + interval '1 day' from generate_series(1, 3) o;
`;

const MIGRATION = 'Migration20261129030000_tenant_leading_keys';

test('the migration converts a populated database in place: each new organization_id is its parent row\'s; down and up again', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- as src/schema/database.ts loads it
  const { Migrator } = require('@mikro-orm/migrations') as typeof MigrationsModule;
  Migrator.register(db.orm);
  const migrator = db.orm.getMigrator();
  // The migrations after it are taken down first (newest first) and applied again after it.
  const later = (await migrator.getExecutedMigrations()).map((migration) => migration.name).filter((name) => name > MIGRATION).sort();
  for (const name of [...later].reverse()) await migrator.down({ migrations: [name] });
  await migrator.down({ migrations: [MIGRATION] });
  const connection = db.orm.em.fork().getConnection();
  await connection.execute(POPULATE);
  await migrator.up({ migrations: [MIGRATION, ...later] });
  const [counts] = await connection.execute<Array<Record<string, number>>>(`select
    (select count(*) from ticket_types t join events e on e.id = t.event_id and e.organization_id = t.organization_id where t.id like 'tt_pop%')::int as ticket_types,
    (select count(*) from event_slots s join events e on e.id = s.event_id and e.organization_id = s.organization_id where e.id like 'evt_pop%')::int as event_slots,
    (select count(*) from ticket_type_slots s join ticket_types t on t.id = s.ticket_type_id and t.organization_id = s.organization_id where t.id like 'tt_pop%')::int as ticket_type_slots,
    (select count(*) from webhook_deliveries d join webhook_messages m on m.id = d.message_id and m.organization_id = d.organization_id where m.id like 'msg_pop%')::int as deliveries,
    (select count(*) from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id and d.organization_id = a.organization_id
      join webhook_messages m on m.id = d.message_id where m.id like 'msg_pop%')::int as attempts,
    (select count(*) from member_credentials c join members m on m.id = c.member_id and m.organization_id = c.organization_id where m.id like 'mem_pop%')::int as credentials,
    (select count(*) from member_invitations c join members m on m.id = c.member_id and m.organization_id = c.organization_id where m.id like 'mem_pop%')::int as invitations,
    (select count(*) from dashboard_sessions c join members m on m.id = c.member_id and m.organization_id = c.organization_id where m.id like 'mem_pop%')::int as sessions,
    (select count(*) from bookings where id like 'bk_pop%')::int as bookings`);
  expect(counts).toEqual({
    ticket_types: 150, event_slots: 48, ticket_type_slots: 48, deliveries: 60, attempts: 60, credentials: 9, invitations: 9, sessions: 9, bookings: 600,
  });
  // Still the converted schema: the same catalog checks hold.
  expect((await tables()).filter((table) => !(table.table in GLOBAL_TABLES) && !table.not_null)).toEqual([]);
});
