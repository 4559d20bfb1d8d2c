import type { MikroORM } from '@mikro-orm/postgresql';
import postgres from 'postgres';
import type { DatabaseTimeouts } from '../../foundation/config';
import { DRIVER_TIMEOUT_SLACK_MS } from './orm-config';
import { queryLogOf, type PreparedStatements } from './prepared-statements';
import { databaseOf, labelled } from './traced-statements';

/** A read connection left unused this long is closed (seconds). */
const IDLE_SECONDS = 60;

/**
 * Seconds before a postgres.js connection tries again after a failed attempt. Its default grows with every
 * failure of any connection of the pool (3^n / 100 s, up to 20 s): a database down for a second under load
 * made a pool wait 10-20 s after the database was back, every statement queued meanwhile answered 503 at
 * the driver's bound (test/faults-database.test.ts). Bounded at half a second; a connection tries again
 * only while statements wait for it.
 */
export const reconnectBackoff = (retries: number): number => Math.min(0.05 * 2 ** retries, 0.5);

/** A pool of prepared statements outside transactions (the hot reads, the one-statement writes, the keys), closed with the service. */
export interface StatementPool extends PreparedStatements {
  close(): Promise<void>;
}

/**
 * A read that got no answer within the driver's bound: the database stopped answering. Worded as
 * node-postgres words its own, which src/foundation/errors/to-app-error.ts answers with 503.
 */
export class ReadTimeoutError extends Error {
  constructor(ms: number) {
    super(`Query read timeout: no answer from the database within ${ms} ms`);
    this.name = 'ReadTimeoutError';
  }
}

/**
 * Statements outside transactions on connections of their own, named for what they run (`name`: the
 * hot reads by default, 'writes', 'keys', 'replica reads'). The hot reads (src/modules/event/event.read-repository.ts) on their own
 * connections, through postgres.js: named statements prepared once per connection, and
 * requests in flight pipelined on a few connections (each write to the socket carries every read
 * queued since the last; PostgreSQL answers them in order), where node-postgres sends one statement
 * per connection per round trip. Figures: docs/performance.md.
 *
 * Writes, their transactions and every read inside a transaction stay on the ORM's pool (a read in a
 * transaction sees its uncommitted changes), except the writes that are one statement committing on
 * its own: a second pool of this kind runs those (`name` 'writes', DB_WRITE_POOL_MAX), apart
 * from the reads, since such a statement may wait for a row lock and a pipelined connection answers in order. Rows come back as node-postgres returns them for these
 * statements (they select text, integers, floats and JSON), errors pass through the ORM's exception
 * converter, and the ORM's query log sees every statement (the statement-count tests read it).
 */
export function openStatementPool(
  orm: MikroORM,
  options: {
    max: number;
    timeouts: DatabaseTimeouts;
    name?: string;
    synchronousCommit?: boolean;
    /**
     * Plan each execution with its values and the tables' size at that moment (`plan_cache_mode =
     * force_custom_plan`) instead of a generic plan kept for the connection's life: for statements that
     * join a batch (`unnest` of arrays) to a table, whose generic plan, made while the table was still
     * empty and not yet analyzed, scans the whole table once it has grown (see IdempotencyKeyStore).
     */
    customPlans?: boolean;
  },
): StatementPool {
  const { timeouts } = options;
  const url = orm.config.get('clientUrl');
  if (!url) throw new Error('the read pool needs the database URL the ORM connects with');
  const sql = postgres(url, {
    max: options.max,
    prepare: true,
    idle_timeout: IDLE_SECONDS,
    connect_timeout: timeouts.connectMs / 1000,
    backoff: reconnectBackoff,
    // The same bounds as the ORM's connections: PostgreSQL cancels a slow statement itself.
    connection: {
      statement_timeout: String(timeouts.statementMs),
      application_name: `event-service ${options.name ?? 'reads'}`,
      // See IdempotencyKeyStore: commits that need not wait for their own flush.
      ...(options.synchronousCommit === false ? { synchronous_commit: 'off' } : {}),
      ...(options.customPlans ? { plan_cache_mode: 'force_custom_plan' } : {}),
    } as never,
    onnotice: () => undefined,
  });
  const driver = orm.em.getDriver();
  const log = queryLogOf(orm.em);
  // For a database that stopped answering (a frozen host): PostgreSQL's own timeout cannot fire.
  const boundMs = timeouts.statementMs + DRIVER_TIMEOUT_SLACK_MS;

  return labelled(options.name ?? 'reads', databaseOf(url), {
    async query<Row>(text: string, values: readonly unknown[]): Promise<Row[]> {
      const started = log ? Date.now() : 0;
      let timer: NodeJS.Timeout | undefined;
      try {
        const rows = await Promise.race([
          sql.unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare: true }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new ReadTimeoutError(boundMs)), boundMs);
          }),
        ]);
        return rows as unknown as Row[];
      } catch (error) {
        // The same exception classes as the ORM's own statements, so errors map the same way.
        throw error instanceof ReadTimeoutError ? error : driver.convertException(error as Error);
      } finally {
        clearTimeout(timer);
        log?.(text, values, started);
      }
    },
    close: () => sql.end({ timeout: timeouts.connectMs / 1000 }),
  });
}
