import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/schema/database';
import { createTestDatabase, type TestDatabase } from './helpers/database';

// Issue 22: the schema can be distributed by tenant (docs/operating.md, "Distributing by tenant
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

let database: TestDatabase;
let orm: MikroORM;
beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase({ clientUrl: database.url, pool: database.pool });
});
afterAll(async () => {
  await orm?.close(true);
  await database?.drop();
});

const query = <T extends object>(sql: string): Promise<T[]> => orm.em.fork().getConnection().execute<T[]>(sql);

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
  const connection = orm.em.fork().getConnection();
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
