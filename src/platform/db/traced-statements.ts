import type { EntityManager } from '@mikro-orm/postgresql';
import { bindTrace, tracing, type StatementSpan, type TraceScope, type TracingRuntime } from '../observability/tracing';

/** What a span says of a statement runner: its pool and database. */
interface RunnerLabel {
  readonly pool: string;
  readonly database: string | undefined;
}

const labels = new WeakMap<object, RunnerLabel>();

/** Names a statement runner's pool for its spans (D27); nothing is kept while tracing is off. Returns `runner`. */
export function labelled<T extends object>(pool: string, database: string | undefined, runner: T): T {
  if (tracing.runtime) labels.set(runner, { pool, database });
  return runner;
}

/** What `tracedFor` wraps: a runner of statements with positional values (a PreparedStatements, a read pool). */
interface StatementRunner {
  query<Row>(text: string, values: readonly unknown[]): Promise<Row[]>;
}

/**
 * `runner` for one request (or webhook attempt) of a trace: each statement a span below `scope`.
 * `runner` itself while tracing is off or without a scope (the choice is made once, where a request's
 * context is made), so the pools pay nothing then.
 */
export function tracedFor<T extends StatementRunner | undefined>(runner: T, scope: TraceScope | undefined): T {
  const runtime = tracing.runtime;
  if (!runtime || !scope || !runner) return runner;
  const label = labels.get(runner) ?? ORM_LABEL;
  return {
    async query<Row>(text: string, values: readonly unknown[]): Promise<Row[]> {
      const span = runtime.statement(scope, label.pool, label.database, text);
      try {
        const rows = await runner.query<Row>(text, values);
        span.end();
        return rows;
      } catch (error) {
        span.end(error);
        throw error;
      }
    },
  } as T;
}

const ORM_LABEL: RunnerLabel = { pool: 'orm', database: undefined };

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
 * MikroORM writes a statement's values into its text before knex sends it: the text a span shows has
 * each literal (a quoted string, a number) back as `?`, so no value reaches the traces.
 */
const LITERALS = /[Ee]?'(?:[^']|'')*'|(?<![\w$."])-?\b\d+(?:\.\d+)?\b/g;
const sanitized = (sql: string): string => sql.replace(LITERALS, '?');

/**
 * The statements of one ORM transaction (a unit of work of a request) as spans below `scope`, from
 * the events of the transaction's own knex client (its queries and flushes, `em.execute` in it).
 * BEGIN and COMMIT are no spans (knex reports no answer for them). Nothing while tracing is off.
 */
export function traceTransaction(tx: EntityManager, scope: TraceScope | undefined, runtime: TracingRuntime | undefined = tracing.runtime): void {
  if (!runtime || !scope) return;
  bindTrace(tx, scope);
  const client = tx.getTransactionContext<{ client?: NodeJS.EventEmitter }>()?.client;
  if (!client || typeof client.on !== 'function') return;
  const database = tx.config.get('dbName');
  const open = new Map<string, StatementSpan>();
  client.on('query', (query: KnexQuery) => {
    if (query.__knexQueryUid === undefined || query.sql === undefined) return;
    open.set(query.__knexQueryUid, runtime.statement(scope, 'orm', database, sanitized(query.sql)));
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

