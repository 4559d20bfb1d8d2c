import { defineConfig, type Options } from '@mikro-orm/postgresql';
import path from 'node:path';
import { ENTITIES } from './entities';

export interface OrmSettings {
  clientUrl: string;
  /** Connection pool bounds; the embedded database accepts a single connection. */
  pool?: { min: number; max: number };
  /** Create the database when it does not exist (default true). The admin CLI never does. */
  ensureDatabase?: boolean;
  /** Called with every SQL statement (tests count statements with it). */
  onQuery?: (sql: string) => void;
  /** Where the query builder's own warnings go (e.g. a dropped connection); dropped when unset. */
  driverLog?: (level: 'warn' | 'error', message: string) => void;
}

/** Where the migrations are: compiled `.js` next to this file, or `.ts` when run from source (jest). */
export const MIGRATIONS_DIRECTORY = path.join(__dirname, 'migrations');
export const MIGRATIONS_EXTENSION = __filename.endsWith('.ts') ? '.ts' : '.js';

export function createOrmConfig(settings: OrmSettings): Options {
  const compiled = !__filename.endsWith('.ts');
  return defineConfig({
    clientUrl: settings.clientUrl,
    entities: ENTITIES,
    // No `extensions: [Migrator]`: openDatabase registers it when a migration is pending, so a process
    // with nothing to migrate (most admin commands) never loads it.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    discovery: { disableDynamicFileAccess: true },
    preferTs: !compiled,
    pool: settings.pool ?? { min: 0, max: 10 },
    ensureDatabase: settings.ensureDatabase ?? true,
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: MIGRATIONS_DIRECTORY,
      pathTs: MIGRATIONS_DIRECTORY,
      glob: compiled ? '!(*.d).js' : '*.ts',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    debug: settings.onQuery ? ['query'] : false,
    logger: settings.onQuery ? (message: string) => settings.onQuery?.(message) : () => undefined,
    colors: false,
    // knex writes its warnings with console.log; they belong in the structured log, or nowhere.
    driverOptions: {
      log: {
        warn: (message: unknown) => settings.driverLog?.('warn', String(message)),
        error: (message: unknown) => settings.driverLog?.('error', String(message)),
        deprecate: () => undefined,
        debug: () => undefined,
      },
    },
  });
}
