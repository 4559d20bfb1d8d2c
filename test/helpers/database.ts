import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { forgetServerSecret } from './server-secret';

/** The PostgreSQL server tests use: TEST_DATABASE_URL's server, else the local one (trust auth). */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export type TestDatabaseKind = 'postgres' | 'embedded';

/** Which database this run uses, decided once by global setup (see global-setup.ts). */
export function testDatabaseKind(): TestDatabaseKind {
  return process.env.EVENT_SERVICE_TEST_DB === 'embedded' ? 'embedded' : 'postgres';
}

/**
 * `describe`, or `describe.skip` with the reason printed, for tests that need a real PostgreSQL server
 * (several processes or connections working at once); only ever skips in the embedded fallback.
 */
export function describeOnPostgres(reason: string): jest.Describe {
  if (testDatabaseKind() === 'postgres') return describe;
  process.stdout.write(`skipped on the embedded database: ${reason}\n`);
  return describe.skip;
}

/** One template per test run (set by global setup), so concurrent runs never share one. */
export function templateDatabase(): string {
  const name = process.env.EVENT_SERVICE_TEST_TEMPLATE;
  if (!name) throw new Error('EVENT_SERVICE_TEST_TEMPLATE is not set: run the tests through jest (global setup)');
  return name;
}

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdminClient<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Pool bounds the ORM must use (the embedded database takes a single ORM connection). */
  pool?: { min: number; max: number };
  drop: () => Promise<void>;
}

/**
 * The embedded fallback: a copy of the migrated template data directory, served by its own PGlite
 * process (PGlite has one database and one session, so test files cannot share one).
 */
async function createEmbeddedTestDatabase(): Promise<TestDatabase> {
  const template = process.env.EVENT_SERVICE_TEST_TEMPLATE_DIR;
  if (!template) throw new Error('EVENT_SERVICE_TEST_TEMPLATE_DIR is not set: run the tests through jest (global setup)');
  const directory = mkdtempSync(path.join(os.tmpdir(), 'event-service-test-db-'));
  cpSync(template, directory, { recursive: true });
  const child = spawn(process.execPath, [path.resolve(__dirname, '../../dist/schema/embedded-serve.js'), directory], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited with code ${code}`)));
  });
  const { url } = JSON.parse(firstLine) as { url: string };
  return {
    name: path.basename(directory),
    url,
    pool: { min: 0, max: 1 },
    drop: async () => {
      child.stdin.end();
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Where released databases wait for the next test file of this run (see releaseDatabase). */
function databasePool(): string | undefined {
  const run = process.env.EVENT_SERVICE_TEST_RUN_TMPDIR;
  return run ? path.join(run, DATABASE_POOL_DIRECTORY) : undefined;
}

/** The run's own prefix for its test databases (global teardown drops every one of them). */
export function testDatabasePrefix(): string {
  return `${templateDatabase().replace(/^event_service_template_/, 'event_service_test_')}_`;
}

/** The pool's directory inside the run's temporary directory (global teardown removes it). */
export const DATABASE_POOL_DIRECTORY = 'test-databases';

/**
 * What a test must not change in a database that is handed to the next file: the schema (tables,
 * columns, defaults, constraints, indexes, triggers, functions), the applied migrations and the
 * database's own settings. A database whose fingerprint differs from the template's is dropped.
 */
const FINGERPRINT = `select md5(coalesce(string_agg(item, E'\n' order by item), '')) as fingerprint from (
  select 'col ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(a.attname, '') || ' ' || coalesce(format_type(a.atttypid, a.atttypmod), '')
         || ' ' || coalesce(a.attnotnull::text, '') || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') as item
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
   where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
  union all
  select 'con ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint
   where connamespace not in (select oid from pg_namespace where nspname in ('pg_catalog', 'information_schema'))
  union all
  select 'idx ' || indexrelid::regclass::text || ' ' || pg_get_indexdef(indexrelid) from pg_index i join pg_class c on c.oid = i.indrelid
   join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
  union all
  select 'trg ' || tgrelid::regclass::text || ' ' || tgname from pg_trigger where not tgisinternal
  union all
  select 'fn ' || p.proname || ' ' || md5(p.prosrc) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname not in ('pg_catalog', 'information_schema')
  union all
  select 'migration ' || name from mikro_orm_migrations
  union all
  select 'db ' || datallowconn::text || ' ' || datconnlimit::text || ' ' || coalesce((select array_agg(s order by s)::text from pg_db_role_setting r, unnest(r.setconfig) s
    where r.setdatabase = d.oid), '') from pg_database d where datname = current_database()
) items`;

/** The schema-and-settings fingerprint of a database (see FINGERPRINT). */
export async function databaseFingerprint(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ fingerprint: string }>(FINGERPRINT)).rows[0].fingerprint;
  } finally {
    await client.end();
  }
}

/**
 * Hands a test file's database to the next file of the run instead of dropping it (DROP and CREATE
 * DATABASE each wait about a second for the disk): every other session on it is ended, every table
 * but the migrations' is emptied with its sequences restarted, so the next file finds exactly what a
 * fresh copy of the template holds. A database whose schema or settings a test changed is dropped.
 */
async function releaseDatabase(name: string): Promise<void> {
  const pool = databasePool();
  const url = databaseUrl(name);
  const reusable = async (): Promise<boolean> => {
    if (!pool) return false;
    await withAdminClient((client) =>
      client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]),
    );
    // Global setup takes the template's (nobody may connect to a template while it is copied).
    const template = process.env.EVENT_SERVICE_TEST_TEMPLATE_FINGERPRINT;
    if (!template || (await databaseFingerprint(url)) !== template) return false;
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        `select format('%I.%I', schemaname, tablename) as name from pg_tables
          where schemaname not in ('pg_catalog', 'information_schema') and tablename <> 'mikro_orm_migrations'`,
      );
      if (rows.length > 0) await client.query(`truncate ${rows.map((row) => row.name).join(', ')} restart identity cascade`);
    } finally {
      await client.end();
    }
    mkdirSync(pool, { recursive: true });
    writeFileSync(path.join(pool, name), '');
    return true;
  };
  const kept = await reusable().catch(() => false);
  if (!kept) await withAdminClient((client) => client.query(`drop database if exists "${name}" with (force)`));
}

/** A released database of this run, claimed by renaming its pool entry (only one file wins it). */
function claimPooledDatabase(): string | undefined {
  const pool = databasePool();
  if (!pool) return undefined;
  let names: string[];
  try {
    names = readdirSync(pool).filter((entry) => !entry.includes('.'));
  } catch {
    return undefined;
  }
  for (const name of names) {
    try {
      renameSync(path.join(pool, name), path.join(pool, `${name}.taken-${process.pid}-${randomBytes(4).toString('hex')}`));
      return name;
    } catch {
      // another test file took it first
    }
  }
  return undefined;
}

/**
 * A database for one test file, in the state of the migrated template: one released by an earlier
 * file of this run (emptied, see releaseDatabase), else a fresh copy of the template.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDatabaseKind() === 'embedded') return createEmbeddedTestDatabase();
  let name = claimPooledDatabase();
  if (name === undefined) {
    name = `${testDatabasePrefix()}${randomBytes(6).toString('hex')}`;
    await withAdminClient((client) => client.query(`create database "${name}" template "${templateDatabase()}"`));
  }
  const claimed = name;
  forgetServerSecret(databaseUrl(claimed));
  let released: Promise<void> | undefined;
  return {
    name: claimed,
    url: databaseUrl(claimed),
    drop: () => (released ??= releaseDatabase(claimed)),
  };
}
