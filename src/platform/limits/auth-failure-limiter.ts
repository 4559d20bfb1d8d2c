import { AppError } from '../../foundation/errors/app-error';
import { WINDOW_SECONDS, type WindowCounter } from './window-counter';

/** D12: failed authentications per client address; past the limit the address is refused until the window ends. */
export class AuthFailureLimiter {
  constructor(
    private readonly counter: WindowCounter,
    private readonly failuresPerMinute: number,
  ) {}

  /** When this process last counted a failure (with counts kept in this process only, nothing older can block). */
  private lastFailureAt = Number.NEGATIVE_INFINITY;

  /**
   * Refuses (429) an address past its budget. Undefined (nothing to wait for) when the counts are this
   * process's own and it counted no failure within a window: every window has ended then, so no
   * address can be blocked (the hot path skips the lookup).
   */
  assertNotBlocked(clientIp: string): Promise<void> | undefined {
    if (!this.counter.shared && this.failuresPerMinute > 0 && Date.now() - this.lastFailureAt >= WINDOW_SECONDS * 1000) return undefined;
    return this.check(clientIp);
  }

  private async check(clientIp: string): Promise<void> {
    const { consumed, msBeforeReset } = await this.counter.peek(`auth-failure:${clientIp}`);
    if (consumed < this.failuresPerMinute) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeReset / 1000));
    throw AppError.rateLimited(`Too many failed authentications from this address; retry in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }

  async recordFailure(clientIp: string): Promise<void> {
    this.lastFailureAt = Date.now();
    await this.counter.consume(`auth-failure:${clientIp}`);
  }
}
