import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Gauge, type Metric } from 'prom-client';
import type { Config } from '../../foundation/config';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { LiveInstances } from './live-instances';
import { OrganizationRateLimiter } from './organization-rate-limiter';
import { WindowCounter } from './window-counter';

/** Where the counts are kept, as /readyz shows it (only with REDIS_URL set). */
export interface RateLimitStoreStatus {
  /** Redis answers: every instance shares one budget. */
  readonly state: 'up' | 'down';
  /** Since when Redis has not answered (ISO), while down. */
  readonly since?: string;
  /** The live instances each allowing its share of a budget while Redis is down. */
  readonly liveInstances: number;
}

export interface Limits {
  readonly organization: OrganizationRateLimiter;
  readonly authFailures: AuthFailureLimiter;
  /** The state of the shared store; undefined without REDIS_URL (counts are this process's own by design). */
  storeStatus(): RateLimitStoreStatus | undefined;
  /** rate_limit_store_up, rate_limit_live_instances, rate_limit_fallback_counts (for /metrics). */
  readonly metrics: readonly Metric[];
  close(): Promise<void>;
}

const REDIS_READY_WAIT_MS = 2_000;

/**
 * The counters of D12: in this process, or in Redis (REDIS_URL) so every instance shares them. While
 * Redis does not answer, each instance counts on its own and allows its share of each budget: the
 * budget divided by the live instances that `countInstances` reports (PostgreSQL, live-instances.ts).
 */
export async function createLimits(config: Config, logger: Logger, countInstances?: () => Promise<number>): Promise<Limits> {
  let redis: Redis | undefined;
  let downSince: number | undefined;
  if (config.redisUrl) {
    // Loaded only with REDIS_URL: the client library is ~1.7 MB of heap a process without Redis never uses.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Redis } = require('ioredis') as typeof import('ioredis');
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
    downSince = Date.now();
    redis.on('ready', () => {
      if (downSince !== undefined) logger.info('Redis (REDIS_URL) reachable: rate limits are shared by every instance again');
      downSince = undefined;
    });
    redis.on('close', () => (downSince ??= Date.now()));
    const ready = await Promise.race([
      new Promise<boolean>((resolve) => redis?.once('ready', () => resolve(true))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), REDIS_READY_WAIT_MS).unref()),
    ]);
    if (!ready) logger.warn('Redis (REDIS_URL) is not reachable yet: each instance allows its share of the rate limits until it is');
  }
  const instances = redis && countInstances ? new LiveInstances(countInstances) : undefined;
  const prefix = config.redisKeyPrefix;
  const rateCounter = new WindowCounter(`${prefix}:rate`, logger, redis);
  const failureCounter = new WindowCounter(`${prefix}:auth-failures`, logger, redis);
  const storeUp = () => redis?.status === 'ready';
  const metrics: Metric[] = redis
    ? [
        new Gauge({
          name: 'rate_limit_store_up',
          help: 'Whether Redis (REDIS_URL) answers: 1 while every instance shares one budget, 0 while each counts its own share',
          registers: [],
          collect() {
            this.set(storeUp() ? 1 : 0);
          },
        }),
        new Gauge({
          name: 'rate_limit_live_instances',
          help: 'Live instances last counted in PostgreSQL: the divisor of each budget while Redis is down',
          registers: [],
          collect() {
            this.set(instances?.last ?? 1);
          },
        }),
        new Gauge({
          name: 'rate_limit_fallback_counts',
          help: 'Requests and failed authentications this process counted on its own because Redis did not answer (since start)',
          registers: [],
          collect() {
            this.set(rateCounter.fallbacks + failureCounter.fallbacks);
          },
        }),
      ]
    : [];
  const limits: Limits = {
    organization: new OrganizationRateLimiter(rateCounter, config.rateLimitPerMinute, instances),
    authFailures: new AuthFailureLimiter(failureCounter, config.authFailuresPerMinute, instances),
    storeStatus() {
      if (redis === undefined) return undefined;
      if (storeUp()) return { state: 'up', liveInstances: instances?.last ?? 1 };
      // Counted again now, so that the answer (and the budgets) follow instances that come and go.
      void instances?.current();
      return { state: 'down', since: new Date(downSince ?? Date.now()).toISOString(), liveInstances: instances?.last ?? 1 };
    },
    metrics,
    async close() {
      if (redis === undefined) return;
      await redis.quit().catch(() => redis?.disconnect());
    },
  };
  return limits;
}
