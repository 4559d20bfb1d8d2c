import type { OrganizationSnapshot } from '../auth/auth-context';
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
  ) {}

  /** Counts one request and reports the budget; `allowed` is false once the organization is over it. */
  async consume(organization: OrganizationSnapshot): Promise<RateLimitState & { allowed: boolean }> {
    const limit = organization.rateLimitPerMinute ?? this.defaultLimitPerMinute;
    const { consumed, msBeforeReset } = await this.counter.consume(`org:${organization.id}`);
    return {
      limit,
      remaining: Math.max(0, limit - consumed),
      resetSeconds: Math.max(1, Math.ceil(msBeforeReset / 1000)),
      allowed: consumed <= limit,
    };
  }
}
