import { defineConfig, type MikroORM, type Options } from '@mikro-orm/postgresql';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../../foundation/config';

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
  /** Bounds on connecting, waiting for a connection, statements and idle transactions. */
  timeouts?: DatabaseTimeouts;
}

/**
 * Whether a pooled pg connection may be handed out again: not while a statement the driver gave up
 * on (its query timeout, a frozen database) is still in flight on it. Such a connection would queue
 * the next request behind a statement that may never end ("Calling client.query() when the client is
 * already executing a query"), or answer it after the database thawed with a statement timeout of a
 * statement it never sent. The pool destroys it and opens another.
 */
function isReusable(connection: PooledPgClient): boolean {
  return (
    connection.readyForQuery === true &&
    connection._ending !== true &&
    connection._queryable !== false &&
    (connection[TRANSACTION_STATUS] === undefined || connection[TRANSACTION_STATUS] === 'I')
  );
}

/**
 * The transaction status PostgreSQL gave in its last ReadyForQuery on a connection: 'I' idle, 'T' in a
 * transaction, 'E' in a failed one. A connection goes back to the pool only after its transaction's
 * COMMIT or ROLLBACK, so one found in a transaction is stale: its ROLLBACK timed out while a statement
 * ahead of it waited on a frozen database (node-postgres drops a query whose timeout fired before it
 * was sent), and the statement ahead completed once the database thawed. Handed out again, it would
 * run the next request inside that old transaction (a COMMIT there would commit the old change too),
 * until PostgreSQL's idle-in-transaction timeout killed it under a later request (a 503 after the
 * database was back: test/faults-database.test.ts).
 */
const TRANSACTION_STATUS = Symbol('transactionStatus');

interface PooledPgClient {
  readyForQuery?: boolean;
  _ending?: boolean;
  _queryable?: boolean;
  [TRANSACTION_STATUS]?: string;
  connection?: { on(event: 'readyForQuery', listener: (message: { status?: string }) => void): void };
}

/** knex's afterCreate: follows the connection's transaction status (see TRANSACTION_STATUS). */
function watchTransactionStatus(connection: PooledPgClient, done: (error: Error | null, connection: PooledPgClient) => void): void {
  connection.connection?.on('readyForQuery', (message) => {
    connection[TRANSACTION_STATUS] = message.status;
  });
  done(null, connection);
}

/** Slack the driver gives PostgreSQL's own statement_timeout before it gives up on a silent server. */
export const DRIVER_TIMEOUT_SLACK_MS = 500;
/** The ORM's pool unless the settings give another (the embedded database's takes one connection). */
const DEFAULT_POOL = { min: 0, max: 10 };

/**
 * Whether the database is reached through more than one connection, so that connections can be spared
 * beside the ORM's pool (LISTEN, the migration lock, the read pool): not the embedded one, which takes one.
 */
export function sparesConnections(pool: { max: number } | undefined): boolean {
  return (pool?.max ?? DEFAULT_POOL.max) >= 2;
}
/** What the modules put together bring to the ORM (src/schema/database.ts): every entity and the migrations. */
export interface DatabaseModel {
  readonly entities: NonNullable<Options['entities']>;
  /** The migrations' directory: compiled `.js` files, or `.ts` when run from source (jest). */
  readonly migrationsDirectory: string;
}

export function createOrmConfig(settings: OrmSettings, model: DatabaseModel): Options {
  const compiled = !__filename.endsWith('.ts');
  const timeouts = settings.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  return defineConfig({
    clientUrl: settings.clientUrl,
    entities: model.entities,
    // No `extensions: [Migrator]`: openDatabase registers it when a migration is pending, so a process
    // with nothing to migrate (most admin commands) never loads it.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    discovery: { disableDynamicFileAccess: true },
    preferTs: !compiled,
    pool: { ...(settings.pool ?? DEFAULT_POOL), validate: isReusable, afterCreate: watchTransactionStatus } as Options['pool'],
    ensureDatabase: settings.ensureDatabase ?? true,
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: model.migrationsDirectory,
      pathTs: model.migrationsDirectory,
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
      // knex's wait for a pooled connection (its default is 60 s: a frozen database held requests that long).
      acquireConnectionTimeout: timeouts.acquireMs,
      connection: {
        connectionTimeoutMillis: timeouts.connectMs,
        statement_timeout: timeouts.statementMs,
        // PostgreSQL cancels slow statements itself; this bounds the wait for one that stopped answering.
        query_timeout: timeouts.statementMs + DRIVER_TIMEOUT_SLACK_MS,
        idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
        keepAlive: true,
      },
      log: {
        warn: (message: unknown) => settings.driverLog?.('warn', String(message)),
        error: (message: unknown) => settings.driverLog?.('error', String(message)),
        deprecate: () => undefined,
        debug: () => undefined,
      },
    },
  });
}

/**
 * MikroORM's `fork()` (one per request that writes) turns `allowGlobalContext` on and back off through
 * `config.set`, and every `set` applies the whole configuration again (it writes
 * `process.env.MIKRO_ORM_COLORS`, a libuv call, and resets the logger's debug mode): CPU on every booking
 * (docs/performance.md) for a key that none of that reads. That key is stored directly; any other `set` works as before.
 */
export function withLightForks(orm: MikroORM): MikroORM {
  const config = orm.config as unknown as { getAll(): Record<string, unknown>; set: (key: string, value: unknown) => void };
  const options = config.getAll();
  const set = config.set.bind(config);
  config.set = (key, value) => {
    if (key === 'allowGlobalContext') options[key] = value;
    else set(key, value);
  };
  return orm;
}
