import type { OrganizationSnapshot } from '../auth/auth-context';
import type { LiveInstances } from './live-instances';
import type { WindowCounter } from './window-counter';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1 while a window is open). */
  resetSeconds: number;
}

/** D12: one budget per organization, shared by all its keys and by both doors. */
export class OrganizationRateLimiter {
  constructor(
    private readonly counter: WindowCounter,
    private readonly defaultLimitPerMinute: number,
    /** With Redis configured: the instances that share the budget while Redis does not answer. */
    private readonly instances?: LiveInstances,
  ) {}

  /**
   * Counts one request and reports the budget; `allowed` is false once the organization is over it.
   * While Redis (configured) does not answer, this instance counts on its own and allows its share of
   * the limit: the limit divided by the live instances (fail open, but not N times the limit).
   */
  async consume(organization: OrganizationSnapshot): Promise<RateLimitState & { allowed: boolean }> {
    const { consumed, msBeforeReset, fallback } = await this.counter.consume(`org:${organization.id}`);
    let limit = organization.rateLimitPerMinute ?? this.defaultLimitPerMinute;
    if (fallback && this.instances) limit = Math.max(1, Math.floor(limit / (await this.instances.current())));
    return {
      limit,
      remaining: Math.max(0, limit - consumed),
      resetSeconds: Math.max(1, Math.ceil(msBeforeReset / 1000)),
      allowed: consumed <= limit,
    };
  }
}
