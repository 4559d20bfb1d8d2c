import type { RequestHandler } from 'express';
import type { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { AppError } from '../errors/app-error';
import type { AuthFailureLimiter } from '../limits/auth-failure-limiter';
import { IpAllowlist } from '../modules/organization/ip-allowlist';

const KEY_SHAPED = /nk_(live|test)_/;
const KEY_PARAM = /^(api[_-]?key|key|token|access[_-]?token|authorization)$/i;
const AUTHENTICATION_FAILURES = new Set(['UNAUTHORIZED', 'INVALID_API_KEY', 'API_KEY_EXPIRED']);

function queryCarriesKey(query: Record<string, unknown>): boolean {
  return Object.entries(query).some(
    ([name, value]) => KEY_PARAM.test(name) || (typeof value === 'string' && KEY_SHAPED.test(value)),
  );
}

/**
 * Resolves the Authorization header into `res.locals.auth`; a key anywhere else is never accepted.
 * With a failure limiter, an address past its failed-authentication budget is refused (429) before
 * its key is even looked at, and every failed attempt counts against that address.
 */
export function authenticate(authenticator: ApiKeyAuthenticator, failures?: AuthFailureLimiter): RequestHandler {
  return async (req, res, next) => {
    const clientIp = IpAllowlist.clientAddress(req.ip) ?? 'unknown';
    await failures?.assertNotBlocked(clientIp);
    try {
      const header = req.headers.authorization;
      if ((header === undefined || header.trim() === '') && queryCarriesKey(req.query)) {
        throw AppError.unauthorized(
          'API keys are accepted only in the Authorization header ("Authorization: Bearer <API_KEY>"), never in the URL',
        );
      }
      res.locals.auth = await authenticator.authenticate(header);
    } catch (error) {
      if (failures && error instanceof AppError && AUTHENTICATION_FAILURES.has(error.code)) await failures.recordFailure(clientIp);
      throw error;
    }
    next();
  };
}
