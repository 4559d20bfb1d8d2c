import cors from 'cors';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Adds a field name to the Vary header, once. */
function appendVary(res: ServerResponse, field: string): void {
  const current = res.getHeader('Vary');
  const fields = current === undefined ? [] : String(current).split(',').map((name) => name.trim());
  if (!fields.some((name) => name.toLowerCase() === field.toLowerCase() || name === '*')) res.setHeader('Vary', [...fields, field].join(', '));
}

/** Headers a browser script may read from our responses. */
const EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Location', 'Idempotent-Replayed'];

/**
 * CORS per D15: off unless CORS_ORIGINS lists origins; only those get CORS headers. Preflights are
 * answered here, before authentication (browsers never send a key with them). Credentials (cookies)
 * are never allowed: the API key in the Authorization header is the only credential.
 */
export function corsFor(origins: readonly string[]): ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined {
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
  // The cors package answers a preflight itself (204) and calls `next` for every other request, at once.
  return (req, res) => {
    appendVary(res, 'Origin');
    let passed = false;
    middleware(req, res, () => {
      passed = true;
    });
    return !passed;
  };
}
