import { STATUS_CODES, type Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { AppError, errorEnvelope, httpStatusOf } from '../errors/app-error';
import { requestIdOf } from './request-id';

/** What a request too malformed for Express to see gets, in the envelope like every other error. */
export function malformedRequestError(error: NodeJS.ErrnoException): AppError {
  return error.code === 'HPE_HEADER_OVERFLOW'
    ? AppError.validation([{ field: 'headers', message: 'the request headers are too large' }])
    : AppError.validation([{ field: 'request', message: 'the request is not valid HTTP/1.1' }]);
}

function writeRawError(socket: Duplex, appError: AppError, headers: string[] = []): void {
  const status = httpStatusOf(appError.code);
  const body = JSON.stringify(errorEnvelope(appError));
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestIdOf(undefined)}`,
      ...headers,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/**
 * Node answers some requests itself, before any handler runs: those it cannot parse (a bare 400, or
 * nothing), an `Expect` other than 100-continue (a bare 417) and CONNECT (no answer at all). This
 * answers all of them in the envelope, with an X-Request-Id, like every other response:
 * - unparseable bytes get `errorFor(error)`;
 * - an unknown expectation is ignored (RFC 9110 lets a server do so) and the request served as usual;
 * - CONNECT gets `connectError` (this service is no proxy).
 */
export function answerClientErrors(
  server: HttpServer | HttpsServer,
  errorFor: (error: NodeJS.ErrnoException) => AppError,
  connectError: AppError = new AppError('METHOD_NOT_ALLOWED', 'CONNECT is not allowed: this service is not a proxy', {
    allowed: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
  }),
): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    writeRawError(socket, errorFor(error));
  });
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  server.on('connect', (_request, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const allowed = connectError.details?.allowed;
    writeRawError(socket, connectError, Array.isArray(allowed) ? [`Allow: ${allowed.join(', ')}`] : []);
  });
}
