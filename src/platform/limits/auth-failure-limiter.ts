import { AppError } from '../../foundation/errors/app-error';
import type { LiveInstances } from './live-instances';
import type { WindowCounter } from './window-counter';

/**
 * D12: failed authentications per client address. Only failing requests are counted and only they
 * are refused: past the limit a failed attempt answers 429 instead of 401 until the window ends, while
 * a valid key from the same address is served (one misconfigured client behind a
 * proxy or a NAT must not lock out everyone who shares its address). A valid key's requests are
 * judged by its organization's budget only.
 */
export class AuthFailureLimiter {
  constructor(
    private readonly counter: WindowCounter,
    private readonly failuresPerMinute: number,
    /** With Redis configured: while it does not answer, each instance allows its share (see OrganizationRateLimiter). */
    private readonly instances?: LiveInstances,
  ) {}

  /** Counts a failed attempt from `clientIp`; the 429 to answer instead when the address is past its budget. */
  async recordFailure(clientIp: string): Promise<AppError | undefined> {
    const { consumed, msBeforeReset, fallback } = await this.counter.consume(`auth-failure:${clientIp}`);
    const limit = fallback && this.instances ? Math.max(1, Math.floor(this.failuresPerMinute / (await this.instances.current()))) : this.failuresPerMinute;
    if (consumed <= limit) return undefined;
    const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeReset / 1000));
    return AppError.rateLimited(`Too many failed authentications from this address; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}
