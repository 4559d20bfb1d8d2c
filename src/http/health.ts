import type { MikroORM } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../foundation/errors/app-error';
import type { RateLimitStoreStatus } from '../platform/limits/limits';
import type { ReplicaStatus } from '../platform/db/replica/replica-state';
import { sendError } from './error-handler';

const READINESS_TIMEOUT_MS = 2_000;

/** GET /healthz: the process is up and serving (no dependency is checked: restarting would not help them). */
export const healthz: RequestHandler = (_req, res) => {
  res.locals.route = '/healthz';
  res.setHeader('Cache-Control', 'no-store');
  res.json({ status: 'ok' });
};

/**
 * GET /readyz: the database answers a trivial query in time; else 503 SERVICE_UNAVAILABLE. With
 * REDIS_URL, the rate-limit store's state too (`checks.rateLimitStore`, `details.rateLimitStore`):
 * Redis down is an outage to see, not a reason to stop serving (each instance then allows its share).
 * With DATABASE_READ_URL, the replica's state and lag (`checks.readReplica`, `details.readReplica`): a
 * replica down is reported, never a reason to be unready (the primary answers its reads, D25).
 */
export function readyz(
  orm: MikroORM,
  logger: Logger,
  rateLimitStore: () => RateLimitStoreStatus | undefined = () => undefined,
  readReplica?: () => ReplicaStatus,
): RequestHandler {
  return async (_req, res) => {
    res.locals.route = '/readyz';
    res.setHeader('Cache-Control', 'no-store');
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
      });
      await Promise.race([orm.em.getConnection().execute('select 1'), timeout]);
    } catch (error) {
      // Answered here, not by the error handler: a probe every few seconds should not log errors twice.
      logger.warn({ err: error }, 'readiness check failed: database unreachable');
      sendError(res, AppError.serviceUnavailable('The database is unreachable', { checks: { database: 'down' } }));
      return;
    } finally {
      clearTimeout(timer);
    }
    const store = rateLimitStore();
    const replica = readReplica?.();
    if (store === undefined && replica === undefined) {
      res.json({ status: 'ready', checks: { database: 'up' } });
      return;
    }
    res.json({
      status: 'ready',
      checks: { database: 'up', ...(store && { rateLimitStore: store.state }), ...(replica && { readReplica: replica.state }) },
      details: { ...(store && { rateLimitStore: store }), ...(replica && { readReplica: replica }) },
    });
  };
}
