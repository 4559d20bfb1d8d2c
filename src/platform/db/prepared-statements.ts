import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundTrace, fillTraceparent, tracing } from '../observability/tracing';
import type { SqlStatement } from './sql-statement';
import { labelled, tracedFor } from './traced-statements';

/** A pg client as knex's pool hands it out: only what a prepared read needs. */
interface PooledClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Fixed SQL for the hot reads, sent through the pg driver as named (prepared) statements on the
 * ORM's own pool: each connection parses and plans a statement once, then only binds and executes it.
 * The ORM stays for writes and their transactions, except the writes that are one fixed statement
 * (a booking), which run here too: on the request's transaction's connection when there is
 * one, else on their own (autocommit), never on the read pool.
 */
export interface PreparedStatements {
  query<Row>(text: string, values: readonly unknown[]): Promise<Row[]>;
}

const readsOf = new WeakMap<object, PreparedStatements>();

/**
 * The prepared-read runner of an entity manager's database (one per connection pool, made on first use).
 * Inside a transaction the reads go through the transaction's own connection, so they see its changes
 * (a read made inside a command's transaction).
 */
export function preparedStatements(em: EntityManager): PreparedStatements {
  const transaction = em.getTransactionContext<{ client: KnexClient }>();
  if (transaction) return createPreparedStatements(em, transaction.client);
  const connection = em.getConnection();
  let reads = readsOf.get(connection);
  if (!reads) {
    reads = createPreparedStatements(em);
    readsOf.set(connection, reads);
  }
  return reads;
}

/** knex's client: its pool's, or a transaction's (which hands out the transaction's connection). */
interface KnexClient {
  acquireConnection(): Promise<PooledClient>;
  releaseConnection(connection: PooledClient): Promise<unknown>;
}

/**
 * Writes a statement to the ORM's query log (tests count statements with it), or undefined when that
 * log is off: what every read runner calls after a statement.
 */
export function queryLogOf(em: EntityManager): ((text: string, values: readonly unknown[], started: number) => void) | undefined {
  const logger = em.config.getLogger();
  if (!logger.isEnabled('query')) return undefined;
  return (text, values, started) => logger.logQuery({ query: text, params: [...values], took: Date.now() - started, level: 'info' });
}

function createPreparedStatements(em: EntityManager, knexClient = em.getConnection().getKnex().client as KnexClient): PreparedStatements {
  const driver = em.getDriver();
  const log = queryLogOf(em);
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (name === undefined) {
      name = `read_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      names.set(text, name);
    }
    return name;
  };

  return labelled('orm', em.config.get('dbName'), {
    async query<Row>(text: string, values: readonly unknown[]): Promise<Row[]> {
      const name = nameOf(text);
      let connection: PooledClient;
      try {
        connection = await knexClient.acquireConnection();
      } catch (error) {
        throw driver.convertException(error as Error);
      }
      const started = log ? Date.now() : 0;
      try {
        const { rows } = await connection.query({ name, text, values });
        return rows as Row[];
      } catch (error) {
        // The same exception classes as the ORM's own statements, so errors map the same way.
        throw driver.convertException(error as Error);
      } finally {
        log?.(text, values, started);
        void knexClient.releaseConnection(connection);
      }
    },
  });
}

const numbered = new Map<string, string>();
const texts = new Map<string, string>();

/**
 * A statement's text made once per `variant` (a short name of the call site and its options): a hot
 * statement built again per request is a new string of a few kilobytes, which every map that knows
 * statements by their text (ours and the driver's) hashes again. `build` must make the same text
 * every time for the same variant.
 */
export function statementText(variant: string, build: () => string): string {
  let text = texts.get(variant);
  if (text === undefined) {
    text = build();
    texts.set(variant, text);
  }
  return text;
}

/** `sql` with knex's `?` placeholders numbered for PostgreSQL ($1, $2, …); made once per text. */
export function numberedPlaceholders(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let index = 0;
    text = sql.replace(/\?/g, () => `$${++index}`);
    numbered.set(sql, text);
  }
  return text;
}

/** The pool of hot statements of a database (its ORM's connection), if the service gave it one. */
const statementPools = new WeakMap<object, PreparedStatements>();

/**
 * Sends the fixed statements that commit on their own (outside a transaction) of `em`'s database to
 * `pool` (src/platform/db/statement-pool.ts: postgres.js, whose connections carry the statements of
 * concurrent requests in shared writes to the socket). The service does this once at start; a
 * database without one (the admin CLI's, tests') runs them on the ORM's pool.
 */
export function useStatementPool(em: EntityManager, pool: PreparedStatements | undefined): void {
  if (pool) statementPools.set(em.getConnection(), pool);
}

/**
 * Runs one fixed statement as a named prepared statement: in `em`'s transaction when it has one; else
 * (a statement that commits on its own) on its database's pool of hot statements (useStatementPool),
 * else on the ORM's pool.
 */
export function executePrepared<Row>(em: EntityManager, sql: string, values: readonly unknown[]): Promise<Row[]> {
  // Numbered once per text: the cache is read here, numberedPlaceholders numbers a new one.
  const text = numbered.get(sql) ?? numberedPlaceholders(sql);
  const statements = em.isInTransaction() ? preparedStatements(em) : (statementPools.get(em.getConnection()) ?? preparedStatements(em));
  if (!tracing.runtime) return statements.query<Row>(text, values);
  // D27: a statement is a span of the request it runs for, and an outbox message it writes keeps that
  // request's traceparent.
  const trace = boundTrace(em);
  return tracedFor(statements, trace).query<Row>(text, fillTraceparent(values, trace));
}

/** `executePrepared` of a declared statement (sql-statement.ts), its parameters passed by name. */
export function executeStatement<Params extends object, Row>(em: EntityManager, statement: SqlStatement<Params, Row>, params: Params): Promise<Row[]> {
  // Its text is numbered already (no `?`: sql-statement.ts refuses one): numberedPlaceholders keeps it.
  return executePrepared<Row>(em, statement.text, statement.values(params));
}

/** A declared statement on a runner of prepared statements (a read pool, the ORM's pool). */
export function queryStatement<Params extends object, Row>(db: PreparedStatements, statement: SqlStatement<Params, Row>, params: Params): Promise<Row[]> {
  return db.query<Row>(statement.text, statement.values(params));
}

/**
 * A declared statement through MikroORM's `em.execute` (knex's `?` text, one value per occurrence),
 * where a statement that is not on a hot path runs: the ORM's pool, its query log and its exceptions.
 */
export function executeOnOrm<Params extends object, Row>(em: EntityManager, statement: SqlStatement<Params, Row>, params: Params): Promise<Row[]> {
  return em.execute<Row[]>(statement.knexText, statement.knexValues(params));
}
