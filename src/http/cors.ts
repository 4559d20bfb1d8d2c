import cors from 'cors';
import type { RequestHandler } from 'express';

/** Headers a browser script may read from our responses. */
const EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Location', 'Idempotent-Replayed'];

/**
 * CORS per D15: off unless CORS_ORIGINS lists origins; only those get CORS headers. Preflights are
 * answered here, before authentication (browsers never send a key with them). Credentials (cookies)
 * are never allowed: the API key in the Authorization header is the only credential.
 */
export function corsFor(origins: readonly string[]): RequestHandler | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  const middleware = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key'],
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
  // Vary on every response, also those to other origins, so no cache hands one origin's answer to another.
  return (req, res, next) => {
    res.vary('Origin');
    middleware(req, res, next);
  };
}
