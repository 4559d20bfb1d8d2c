import type { MikroORM } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';
import { AppError } from '../../foundation/errors/app-error';
import { assertSameOrigin, sessionCookieOf } from './cross-site';
import type { DashboardSettings } from '../../foundation/config';
import { findSession } from './dashboard-session';

/**
 * On /graphql, a dashboard session stands in for a key (D19): a request without an Authorization header
 * but with the session cookie is authenticated by the session, same origin and anti-forgery header
 * required. Anything else goes to `keyAuthentication` unchanged.
 */
export function sessionOrKey(orm: MikroORM, settings: DashboardSettings, keyAuthentication: RequestHandler): RequestHandler {
  return async (req, res, next) => {
    const cookie = req.headers.authorization === undefined ? sessionCookieOf(req) : undefined;
    if (cookie === undefined) return keyAuthentication(req, res, next);
    const session = await findSession(orm.em.fork(), settings, cookie);
    if (session === undefined) throw new AppError('UNAUTHORIZED', 'The dashboard session has ended; sign in again');
    assertSameOrigin(req, session.csrfToken);
    res.locals.auth = session.auth;
    next();
  };
}

/**
 * Runs `guard` for API keys only. The organization's rate limit (D12) is a budget shared by its keys: a
 * dashboard session does not draw from it, so keys that exhaust it never lock admins out of the page
 * where they would look into it.
 */
export function forKeysOnly(guard: RequestHandler): RequestHandler {
  return (req, res, next) => (res.locals.auth?.session === undefined ? guard(req, res, next) : next());
}
