import type { MikroORM } from '@mikro-orm/postgresql';
import { tracing, type StatementSpan, type TracingRuntime } from '../observability/tracing';
import type { PreparedReads } from './prepared-reads';

/**
 * A statement runner whose every statement is a span when tracing is on (D27): the runner itself when
 * it is off, so the pools pay nothing then (the choice is made once, when the runner is made).
 */
export function tracedStatements<T extends PreparedReads>(pool: string, database: string | undefined, runner: T): T {
  const runtime = tracing.runtime;
  if (!runtime) return runner;
  const query = runner.query.bind(runner);
  return Object.assign(Object.create(runner) as T, {
    async query<Row>(text: string, values: readonly unknown[]): Promise<Row[]> {
      const span = runtime.statement(pool, database, text);
      try {
        const rows = await query<Row>(text, values);
        span.end();
        return rows;
      } catch (error) {
        span.end(error);
        throw error;
      }
    },
  });
}

/** The database a URL names (db.namespace), or undefined. */
export function databaseOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1)) || undefined;
  } catch {
    return undefined;
  }
}

interface KnexQuery {
  readonly sql?: string;
  readonly __knexQueryUid?: string;
}

/**
 * Every statement the ORM's pool runs through knex (MikroORM's queries, flushes, `em.execute`) as a
 * span when tracing is on, from knex's own query events, which fire in the caller's async context.
 * BEGIN, COMMIT and ROLLBACK have no answer event in knex and are not spans.
 */
export function traceOrmStatements(orm: MikroORM, runtime: TracingRuntime | undefined = tracing.runtime): void {
  if (!runtime) return;
  const database = orm.config.get('dbName') || databaseOf(orm.config.get('clientUrl'));
  const client = orm.em.getConnection().getKnex().client as NodeJS.EventEmitter;
  const open = new Map<string, StatementSpan>();
  client.on('query', (query: KnexQuery) => {
    if (query.__knexQueryUid === undefined || query.sql === undefined) return;
    open.set(query.__knexQueryUid, runtime.statement('orm', database, query.sql));
  });
  const settle = (query: KnexQuery, error?: unknown) => {
    const uid = query.__knexQueryUid;
    if (uid === undefined) return;
    open.get(uid)?.end(error);
    open.delete(uid);
  };
  client.on('query-response', (_response: unknown, query: KnexQuery) => settle(query));
  client.on('query-error', (error: unknown, query: KnexQuery) => settle(query, error ?? new Error('query failed')));
}
