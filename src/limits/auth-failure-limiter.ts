import { AppError } from '../errors/app-error';
import type { WindowCounter } from './window-counter';

/** D12: failed authentications per client address; past the limit the address is refused until the window ends. */
export class AuthFailureLimiter {
  constructor(
    private readonly counter: WindowCounter,
    private readonly failuresPerMinute: number,
  ) {}

  async assertNotBlocked(clientIp: string): Promise<void> {
    const { consumed, msBeforeReset } = await this.counter.peek(`auth-failure:${clientIp}`);
    if (consumed < this.failuresPerMinute) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeReset / 1000));
    throw AppError.rateLimited(`Too many failed authentications from this address; retry in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }

  async recordFailure(clientIp: string): Promise<void> {
    await this.counter.consume(`auth-failure:${clientIp}`);
  }
}
