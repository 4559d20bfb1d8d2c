import { AppError } from './app-error';

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08006',
  '57014', // query_canceled: statement_timeout
  '25P03', // idle_in_transaction_session_timeout
  '53300', // too_many_connections
  // postgres.js (the read pool, src/platform/db/read-pool.ts)
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** What the driver and pool say when the database went away or stopped answering in time. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Timeout acquiring a connection|Query read timeout|Client has encountered a connection error|Transaction query already complete|Connection terminated due to connection timeout|the database system is (starting up|shutting down)/i;

function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    // `previous`: MikroORM's wrapper; `cause`: standard; `thrownValue`: graphql's wrapper of a thrown non-Error
    // (the pg pool rejects a refused connection with a plain object).
    const candidate = current as { name?: string; code?: string; message?: string; cause?: unknown; previous?: unknown; thrownValue?: unknown };
    if (candidate.name === 'ConnectionException' || candidate.name === 'KnexTimeoutError') return true;
    if (candidate.code && CONNECTION_ERROR_CODES.has(candidate.code)) return true;
    if (candidate.message && UNAVAILABLE_MESSAGES.test(candidate.message)) {
      return true;
    }
    current = candidate.previous ?? candidate.cause ?? candidate.thrownValue;
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
