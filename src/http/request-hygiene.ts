import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../foundation/errors/app-error';

/**
 * Requests Node would otherwise refuse or answer oddly, made explicit (the server is created with
 * `requireHostHeader: false` so these get the envelope and an X-Request-Id):
 * - an HTTP/1.1 request without `Host` is 400 on field `Host` (RFC 9112 requires one);
 * - `If-None-Match: *` is dropped: it asks "is there any representation", which for a GET means
 *   nothing useful here, and Express would answer a list with a body-less 304;
 * - a request asking to switch protocols (`Upgrade` with `Connection: upgrade`) is served as the
 *   HTTP/1.1 request it also is (RFC 9110 lets a server ignore Upgrade: no protocol switches here),
 *   and its answer closes the connection. Node's parser takes whatever followed that request in the
 *   same read as the new protocol's bytes and, with no 'upgrade' listener, drops them: a request
 *   pipelined behind it would never be answered while the connection stayed open. `Connection:
 *   close` tells the client so (RFC 9112 9.3.2: it sends its unanswered requests again).
 */
export function assertHygienic(req: IncomingMessage, res: ServerResponse): void {
  if (req.headers.upgrade !== undefined && asksForUpgrade(req)) res.setHeader('Connection', 'close');
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
    throw AppError.validation([{ field: 'Host', message: 'an HTTP/1.1 request must carry a Host header' }]);
  }
  if (req.headers['if-none-match']?.trim() === '*') delete req.headers['if-none-match'];
}

/** What makes Node's parser (llhttp) treat the rest of the connection as another protocol: with Upgrade, `Connection: upgrade`. */
function asksForUpgrade(req: IncomingMessage): boolean {
  const { connection } = req.headers;
  return connection !== undefined && connection.split(',').some((option) => option.trim().toLowerCase() === 'upgrade');
}
