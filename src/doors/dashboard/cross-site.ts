import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../foundation/errors/app-error';

export const SESSION_COOKIE = '__Host-dashboard-session';
/** The anti-forgery header: a page of another site cannot send it without a CORS preflight we never grant. */
export const CSRF_HEADER = 'x-csrf-token';

const COOKIE_PATTERN = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]*)`);

export function sessionCookieOf(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const match = COOKIE_PATTERN.exec(req.headers.cookie ?? '');
  return match ? match[1] : undefined;
}

export function sessionCookie(id: string, maxAgeMs: number): string {
  return `${SESSION_COOKIE}=${id}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}

const crossSite = (why: string) => AppError.crossSite(why);

/**
 * Refuses a request that a page of another origin could have made: a browser's Sec-Fetch-Site or
 * Origin naming another site, or no anti-forgery header. With `expectedToken` (a session's), the
 * header must carry exactly that token.
 */
export function assertSameOrigin(req: Pick<IncomingMessage, 'headers'>, expectedToken?: string): void {
  const fetchSite = req.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin') throw crossSite(`Sec-Fetch-Site is "${String(fetchSite)}"`);
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host === undefined || host !== req.headers.host) throw crossSite('the Origin is another site');
  }
  const token = req.headers[CSRF_HEADER];
  if (typeof token !== 'string' || token === '') throw crossSite(`the ${CSRF_HEADER} header is missing`);
  if (expectedToken !== undefined) {
    const given = Buffer.from(token);
    const expected = Buffer.from(expectedToken);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw crossSite(`the ${CSRF_HEADER} header does not match the session`);
  }
}
