import type { IncomingMessage } from 'node:http';
import { AppError } from '../foundation/errors/app-error';

/**
 * Requests Node would otherwise refuse or answer oddly, made explicit (the server is created with
 * `requireHostHeader: false` so these get the envelope and an X-Request-Id):
 * - an HTTP/1.1 request without `Host` is 400 on field `Host` (RFC 9112 requires one);
 * - `If-None-Match: *` is dropped: it asks "is there any representation", which for a GET means
 *   nothing useful here, and Express would answer a list with a body-less 304.
 */
export function assertHygienic(req: IncomingMessage): void {
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
    throw AppError.validation([{ field: 'Host', message: 'an HTTP/1.1 request must carry a Host header' }]);
  }
  if (req.headers['if-none-match']?.trim() === '*') delete req.headers['if-none-match'];
}
