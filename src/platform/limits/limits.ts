import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../foundation/config';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { OrganizationRateLimiter } from './organization-rate-limiter';
import { WindowCounter } from './window-counter';

export interface Limits {
  readonly organization: OrganizationRateLimiter;
  readonly authFailures: AuthFailureLimiter;
  close(): Promise<void>;
}

const REDIS_READY_WAIT_MS = 2_000;

/** The counters of D12: in this process, or in Redis (REDIS_URL) so every instance shares them. */
export async function createLimits(config: Config, logger: Logger): Promise<Limits> {
  let redis: Redis | undefined;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, {
      // A request must never wait for Redis to come back: fail fast and count locally meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: 500,
      retryStrategy: (attempt) => Math.min(5_000, 100 * 2 ** attempt),
    });
    // Failures are reported (rate-limited) by the counters; an unhandled 'error' event would crash.
    redis.on('error', () => undefined);
    const ready = await Promise.race([
      new Promise<boolean>((resolve) => redis?.once('ready', () => resolve(true))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), REDIS_READY_WAIT_MS).unref()),
    ]);
    if (!ready) logger.warn('Redis (REDIS_URL) is not reachable yet: rate limits are counted per instance until it is');
  }
  const prefix = config.redisKeyPrefix;
  const limits: Limits = {
    organization: new OrganizationRateLimiter(new WindowCounter(`${prefix}:rate`, logger, redis), config.rateLimitPerMinute),
    authFailures: new AuthFailureLimiter(new WindowCounter(`${prefix}:auth-failures`, logger, redis), config.authFailuresPerMinute),
    async close() {
      if (redis === undefined) return;
      await redis.quit().catch(() => redis?.disconnect());
    },
  };
  return limits;
}
