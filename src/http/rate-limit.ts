import type { ServerResponse } from 'node:http';
import type { AuthContext } from '../platform/auth/auth-context';
import { AppError } from '../foundation/errors/app-error';
import type { OrganizationRateLimiter, RateLimitState } from '../platform/limits/organization-rate-limiter';

/**
 * D12: draws one request from the organization's budget. The RateLimit-* headers go on the response
 * (also on the 429, and on any error after this), then 429 RATE_LIMITED past the budget.
 */
export async function drawFromBudget(limiter: OrganizationRateLimiter, auth: AuthContext, res: ServerResponse): Promise<RateLimitState> {
  const state = await limiter.consume(auth.organization);
  res.setHeader('RateLimit-Limit', String(state.limit));
  res.setHeader('RateLimit-Remaining', String(state.remaining));
  res.setHeader('RateLimit-Reset', String(state.resetSeconds));
  if (!state.allowed) {
    throw AppError.rateLimited(
      `Rate limit of ${state.limit} requests a minute exceeded for this organization; retry in ${state.resetSeconds} s`,
      { retryAfterSeconds: state.resetSeconds, limit: state.limit },
    );
  }
  return { limit: state.limit, remaining: state.remaining, resetSeconds: state.resetSeconds };
}
