import type { IncomingMessage } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../../foundation/errors/app-error';
import type { DashboardSettings } from '../../foundation/dashboard-settings';
import type { AuthContext } from '../../platform/auth/auth-context';
import { assertSameOrigin, sessionCookieOf } from './cross-site';
import { findSession } from './dashboard-session';

/**
 * On /graphql, a dashboard session stands in for a key (D19): a request without an Authorization header
 * but with the session cookie is authenticated by the session, same origin and anti-forgery header
 * required. Undefined when the request carries no session cookie (the key is then asked for).
 */
export function sessionAuthentication(orm: MikroORM, settings: DashboardSettings): (req: IncomingMessage) => Promise<AuthContext | undefined> {
  return async (req) => {
    const cookie = sessionCookieOf(req);
    if (cookie === undefined) return undefined;
    const session = await findSession(orm.em.fork(), settings, cookie);
    if (session === undefined) throw new AppError('UNAUTHORIZED', 'The dashboard session has ended; sign in again');
    assertSameOrigin(req, session.csrfToken);
    return session.auth;
  };
}
