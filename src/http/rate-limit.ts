import type { RequestHandler } from 'express';
import { AppError } from '../errors/app-error';
import type { OrganizationRateLimiter } from '../limits/organization-rate-limiter';
import { authOf } from './locals';

/** Draws one request from the organization's budget; headers on every authenticated response, 429 past it. */
export function rateLimit(limiter: OrganizationRateLimiter): RequestHandler {
  return async (_req, res, next) => {
    const auth = authOf(res);
    const state = await limiter.consume(auth.organization);
    res.setHeader('RateLimit-Limit', String(state.limit));
    res.setHeader('RateLimit-Remaining', String(state.remaining));
    res.setHeader('RateLimit-Reset', String(state.resetSeconds));
    res.locals.rateLimit = { limit: state.limit, remaining: state.remaining, resetSeconds: state.resetSeconds };
    if (!state.allowed) {
      throw AppError.rateLimited(
        `Rate limit of ${state.limit} requests a minute exceeded for this organization; retry in ${state.resetSeconds} s`,
        { retryAfterSeconds: state.resetSeconds, limit: state.limit },
      );
    }
    next();
  };
}
