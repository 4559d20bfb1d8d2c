import type { RequestHandler } from 'express';
import type { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { AppError } from '../errors/app-error';

const KEY_SHAPED = /nk_(live|test)_/;
const KEY_PARAM = /^(api[_-]?key|key|token|access[_-]?token|authorization)$/i;

function queryCarriesKey(query: Record<string, unknown>): boolean {
  return Object.entries(query).some(
    ([name, value]) => KEY_PARAM.test(name) || (typeof value === 'string' && KEY_SHAPED.test(value)),
  );
}

/** Resolves the Authorization header into `res.locals.auth`; a key anywhere else is never accepted. */
export function authenticate(authenticator: ApiKeyAuthenticator): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    if ((header === undefined || header.trim() === '') && queryCarriesKey(req.query as Record<string, unknown>)) {
      throw new AppError(
        'UNAUTHORIZED',
        'API keys are accepted only in the Authorization header ("Authorization: Bearer <API_KEY>"), never in the URL',
      );
    }
    res.locals.auth = await authenticator.authenticate(header);
    next();
  };
}
