import { readdirSync } from 'node:fs';
import type * as MigrationsModule from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import path from 'node:path';
import { createOrmConfig, sparesConnections, withLightForks, type DatabaseModel, type OrmSettings } from '../platform/db/orm-config';
import { ENTITIES } from './entities';

/** Where the migrations are: compiled `.js` next to this file, or `.ts` when run from source (jest). */
const MIGRATIONS_DIRECTORY = path.join(__dirname, 'migrations');
const MIGRATIONS_EXTENSION = __filename.endsWith('.ts') ? '.ts' : '.js';
/** The database schema of every module: their entities and the migrations that make their tables. */
const MODEL: DatabaseModel = { entities: ENTITIES, migrationsDirectory: MIGRATIONS_DIRECTORY };

// Arbitrary constant shared by every process of this service: serializes concurrent migrators.
const MIGRATION_LOCK_ID = 7_020_261_122;

/**
 * Whether the database lacks one of our migrations: one statement against the migrations table, so
 * that the migrator (and its modules) is loaded only when there is something to apply.
 */
async function hasPendingMigrations(orm: MikroORM): Promise<boolean> {
  const files = readdirSync(MIGRATIONS_DIRECTORY)
    .filter((file) => file.endsWith(MIGRATIONS_EXTENSION) && !file.endsWith(`.d${MIGRATIONS_EXTENSION}`))
    .map((file) => file.slice(0, -MIGRATIONS_EXTENSION.length));
  let applied: Set<string>;
  try {
    const rows = await orm.em.getConnection().execute<Array<{ name: string }>>('select name from mikro_orm_migrations');
    applied = new Set(rows.map((row) => row.name));
  } catch {
    return true; // no migrations table yet
  }
  return files.some((name) => !applied.has(name));
}

/** Applies pending migrations; returns the names of those applied (none when there was nothing to do). */
async function migrate(orm: MikroORM, settings: OrmSettings): Promise<string[]> {
  if (!(await hasPendingMigrations(orm))) return [];
  const up = async () => {
    // Registered here, not in the ORM config: a process with nothing to migrate never loads it.
    const { Migrator } = require('@mikro-orm/migrations') as typeof MigrationsModule;
    Migrator.register(orm);
    return (await orm.getMigrator().up()).map((migration) => migration.name);
  };
  // A single-connection database (the embedded one) cannot spare a connection for the lock, and
  // only one process can reach it anyway.
  if (!sparesConnections(settings.pool)) return up();
  const lock = new Client({ connectionString: settings.clientUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    return await up();
  } finally {
    await lock.end();
  }
}

/** Connects and applies every pending migration; says which it applied (the CLI's `db migrate`). */
export type OpenSettings = OrmSettings;

export async function openMigratedDatabase(settings: OrmSettings): Promise<{ orm: MikroORM; migrationsApplied: string[] }> {
  const orm = withLightForks(await MikroORM.init(createOrmConfig(settings, MODEL)));
  try {
    return { orm, migrationsApplied: await migrate(orm, settings) };
  } catch (error) {
    await orm.close(true);
    throw error;
  }
}

/** Connects and applies every pending migration (start-up of the server, the CLI and tests). */
export async function openDatabase(settings: OrmSettings): Promise<MikroORM> {
  return (await openMigratedDatabase(settings)).orm;
}

/**
 * The ORM on a streaming replica (DATABASE_READ_URL, D25): the same entities, no migrations (the
 * replica replays the primary's), never creating a database. A replica that does not answer yet does
 * not stop the start: its reads go to the primary until it does.
 */
export async function openReplicaDatabase(settings: OrmSettings): Promise<MikroORM> {
  // connect: false: the first read connects (a replica that does not answer never holds up the start).
  return withLightForks(await MikroORM.init({ ...createOrmConfig({ ...settings, ensureDatabase: false }, MODEL), connect: false }));
}
