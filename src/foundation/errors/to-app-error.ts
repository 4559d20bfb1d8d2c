import { AppError } from './app-error';

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
  '25P03', // idle_in_transaction_session_timeout
  '53300', // too_many_connections
  // postgres.js (the read, write and keys pools, src/platform/db/statement-pool.ts)
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** MikroORM's exception classes for a database that is gone or too slow (its converter's names). */
const UNAVAILABLE_EXCEPTIONS = new Set(['ConnectionException', 'LockWaitTimeoutException', 'KnexTimeoutError', 'ReadTimeoutError']);

/**
 * What the drivers and pools say when the database went away or stopped answering in time: pg
 * ("timeout expired" on connect, "Query read timeout", "Connection terminated…"), pg-pool, knex
 * ("Timeout acquiring a connection", "Transaction query already complete" once a timed-out
 * transaction was ended under it), postgres.js, PostgreSQL itself.
 */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connect ECONNREFUSED|timeout expired|timeout exceeded when trying to connect|Timeout acquiring a connection|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable|Transaction query already complete|Connection terminated due to connection timeout|the database system is (starting up|shutting down|in recovery mode)|canceling statement due to (statement|lock) timeout|terminating connection|write CONNECTION_|CONNECT_TIMEOUT|server closed the connection unexpectedly|Cannot use a pool after calling end/i;

function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 8; depth += 1) {
    // `previous`: MikroORM's wrapper; `cause`: standard; `thrownValue`: graphql's wrapper of a thrown non-Error
    // (the pg pool rejects a refused connection with a plain object); `originalError`: a GraphQL error's.
    const candidate = current as {
      name?: string;
      code?: string;
      message?: string;
      cause?: unknown;
      previous?: unknown;
      thrownValue?: unknown;
      originalError?: unknown;
    };
    if (candidate.name && UNAVAILABLE_EXCEPTIONS.has(candidate.name)) return true;
    if (typeof candidate.code === 'string' && CONNECTION_ERROR_CODES.has(candidate.code)) return true;
    if (typeof candidate.message === 'string' && UNAVAILABLE_MESSAGES.test(candidate.message)) return true;
    current = candidate.previous ?? candidate.cause ?? candidate.thrownValue ?? candidate.originalError;
  }
  return false;
}

/**
 * Any thrown value as a client-safe AppError. Unknown failures become INTERNAL_ERROR with the request
 * id and a generic message: ORM and SQL text never reach a client (the caller logs the original).
 */
export function toAppError(error: unknown, requestId: string): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) {
    return AppError.serviceUnavailable(undefined, { requestId });
  }
  return AppError.internal(requestId);
}
