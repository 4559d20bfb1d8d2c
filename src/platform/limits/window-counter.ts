import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';

export interface WindowCount {
  /** Points consumed in the current window, including this one. */
  consumed: number;
  /** Milliseconds until the window ends and the count starts again from zero. */
  msBeforeReset: number;
  /** Counted in this process because Redis (configured) did not answer: this instance's own count only. */
  fallback?: true;
}

export const WINDOW_SECONDS = 60;
const REDIS_WARNING_INTERVAL_MS = 30_000;
// The counters only count; each caller compares with its own limit (organizations differ, and a
// changed limit applies at once without resetting the window), so the library never refuses.
const NEVER_REFUSE = Number.MAX_SAFE_INTEGER;

/**
 * Fixed one-minute windows per key, counted by rate-limiter-flexible: in this process, or in Redis
 * when a client is given so that every instance counts into one window. If Redis fails, the count
 * falls back to this process's own window (fail open to a per-instance budget) with a warning.
 */
export class WindowCounter {
  private readonly local: RateLimiterMemory;
  private readonly redisLimiter: RateLimiterRedis | undefined;
  private lastWarningAt = 0;

  constructor(
    keyPrefix: string,
    private readonly logger: Logger,
    redis?: Redis,
  ) {
    this.local = new RateLimiterMemory({ keyPrefix, points: NEVER_REFUSE, duration: WINDOW_SECONDS });
    this.redisLimiter = redis
      ? new RateLimiterRedis({ storeClient: redis, keyPrefix, points: NEVER_REFUSE, duration: WINDOW_SECONDS, rejectIfRedisNotReady: true })
      : undefined;
  }

  /** Counts are kept in Redis, shared by every instance (else in this process only). */
  get shared(): boolean {
    return this.redisLimiter !== undefined;
  }

  /** The current window's count without adding to it (zero when the key has no window open). */
  peek(key: string): Promise<WindowCount> {
    return this.consume(key, 0);
  }

  /** Every count this process made on its own because Redis did not answer (the metric). */
  fallbacks = 0;

  /** Adds `points` to the key's window, one by default (0: reads it without opening one). */
  async consume(key: string, points: 0 | 1 = 1): Promise<WindowCount> {
    if (this.redisLimiter) {
      try {
        return toCount(await (points === 0 ? this.redisLimiter.get(key) : this.redisLimiter.consume(key, points)));
      } catch (error) {
        this.warn(error);
        this.fallbacks += 1;
        return { ...toCount(await (points === 0 ? this.local.get(key) : this.local.consume(key, points))), fallback: true };
      }
    }
    return toCount(await (points === 0 ? this.local.get(key) : this.local.consume(key, points)));
  }

  private warn(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarningAt < REDIS_WARNING_INTERVAL_MS) return;
    this.lastWarningAt = now;
    this.logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'rate limit store (Redis) unavailable: counting in this process only until it is back',
    );
  }
}

function toCount(result: RateLimiterRes | null): WindowCount {
  if (result === null) return { consumed: 0, msBeforeReset: WINDOW_SECONDS * 1000 };
  return { consumed: result.consumedPoints, msBeforeReset: Math.max(0, result.msBeforeNext) };
}
