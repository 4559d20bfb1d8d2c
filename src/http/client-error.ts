import { STATUS_CODES, type Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { AppError, httpStatusOf } from '../errors/app-error';
import { errorEnvelope } from './error-handler';
import { requestIdOf } from './request-id';

/** What a request too malformed for Express to see gets, in the envelope like every other error. */
export function malformedRequestError(error: NodeJS.ErrnoException): AppError {
  return error.code === 'HPE_HEADER_OVERFLOW'
    ? AppError.validation([{ field: 'headers', message: 'the request headers are too large' }])
    : AppError.validation([{ field: 'request', message: 'the request is not valid HTTP/1.1' }]);
}

/**
 * Node answers requests it cannot parse with a bare "400 Bad Request" (or nothing) before any handler
 * runs; this answers them in the envelope, with an X-Request-Id, like every other response.
 */
export function answerClientErrors(server: HttpServer | HttpsServer, errorFor: (error: NodeJS.ErrnoException) => AppError): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const appError = errorFor(error);
    const status = httpStatusOf(appError.code);
    const body = JSON.stringify(errorEnvelope(appError));
    socket.end(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${requestIdOf(undefined)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
