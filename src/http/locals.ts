import type { Response } from 'express';
import type { Logger } from 'pino';
import type { AuthContext } from '../platform/auth/auth-context';
import type { IdempotencyClaim } from '../platform/db/unit-of-work-scope';
import type { RateLimitState } from '../platform/limits/organization-rate-limiter';

/*
 * What the middleware leaves on `res.locals` for the handlers after it, typed once (Express merges
 * this interface into every `res.locals`).
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express's own augmentation point.
  namespace Express {
    interface Locals {
      /** Set first, by request-id.ts. */
      requestId: string;
      /** The request's child logger, set by access-log.ts. */
      logger: Logger;
      /** The caller, set by authenticate.ts (absent before it runs and on public routes). */
      auth?: AuthContext;
      /** The route pattern for logs and metrics (never the raw URL). */
      route?: string;
      /** The operation that ran, for the access log. */
      operation?: { name?: string };
      /** The organization's budget after this request, set by rate-limit.ts (Query.viewer shows it). */
      rateLimit?: RateLimitState;
      /** The Idempotency-Key this request holds, set by idempotent-requests.ts (its units of work record on it). */
      idempotency?: IdempotencyClaim;
      /** Which door answers: errors are written in its shape. */
      door?: 'rest' | 'graphql';
    }
  }
}

/** The authenticated caller; only for handlers mounted after the authenticate guard. */
export function authOf(res: Response): AuthContext {
  const { auth } = res.locals;
  if (!auth) throw new Error('authOf() used on a route without the authenticate guard');
  return auth;
}
