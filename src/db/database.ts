import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { createOrmConfig, type OrmSettings } from './orm-config';

// Arbitrary constant shared by every process of this service: serializes concurrent migrators.
const MIGRATION_LOCK_ID = 7_020_261_122;

async function migrate(orm: MikroORM, settings: OrmSettings): Promise<void> {
  // A single-connection database (the embedded one) cannot spare a connection for the lock, and
  // only one process can reach it anyway.
  if ((settings.pool?.max ?? 10) < 2) {
    await orm.getMigrator().up();
    return;
  }
  const lock = new Client({ connectionString: settings.clientUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await orm.getMigrator().up();
  } finally {
    await lock.end();
  }
}

/** Connects and applies every pending migration (start-up of the server, the CLI and tests). */
export async function openDatabase(settings: OrmSettings): Promise<MikroORM> {
  const orm = await MikroORM.init(createOrmConfig(settings));
  try {
    await migrate(orm, settings);
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}
