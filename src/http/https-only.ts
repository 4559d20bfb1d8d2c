import http, { type IncomingHttpHeaders } from 'node:http';
import { AppError } from '../foundation/errors/app-error';
import { errorEnvelope } from './error-handler';
import { answerClientErrors } from './client-error';
import { requestIdOf } from './request-id';

const httpsRequired = () => AppError.httpsRequired();

/**
 * Answers every plain-HTTP request that reached the TLS port: 403 HTTPS_REQUIRED, never a redirect
 * (which would teach clients to send keys in clear first), and no handler runs.
 */
export function createPlainHttpRefuser(): http.Server {
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    const body = JSON.stringify(errorEnvelope(httpsRequired()));
    res.writeHead(403, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Request-Id': requestIdOf(req.headers['x-request-id']),
      Connection: 'close',
    });
    res.end(body);
    req.resume();
  });
  // Even bytes that do not parse as HTTP are refused as plain HTTP: this port serves nothing in clear.
  answerClientErrors(server, httpsRequired, httpsRequired());
  return server;
}

/** Behind a TLS-terminating proxy (TRUST_PROXY): did the proxy say the client used https? */
export function isForwardedHttps(headers: IncomingHttpHeaders): boolean {
  return String(headers['x-forwarded-proto'] ?? '').split(',')[0].trim().toLowerCase() === 'https';
}

