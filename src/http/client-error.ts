import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { AppError, httpStatusOf } from '../foundation/errors/app-error';
import { errorEnvelope } from './error-handler';
import { requestIdOf } from './request-id';

const LINE_FEED = 0x0a;

/** How long the rest of a refused request is read after its answer before the connection is dropped. */
const DRAIN_AFTER_ERROR_MS = 5_000;

/** What the HTTP parser saw of the request it refused. */
export interface RefusedRequest {
  /** The request line (method, target, version) ended before the parser gave up. */
  readonly requestLineEnded: boolean;
}

/**
 * What a request too malformed for Express to see gets, in the envelope like every other error: a
 * head over the parser's limit is 414 URI_TOO_LONG when its request line never ended (a long path or
 * query), else 431 HEADERS_TOO_LARGE; a request that did not arrive in time 408; anything else that
 * is not HTTP/1.1, 400 VALIDATION_ERROR on field `request`.
 */
export function malformedRequestError(error: NodeJS.ErrnoException, request: RefusedRequest = { requestLineEnded: true }): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return request.requestLineEnded ? AppError.headersTooLarge(maxHeaderSize) : AppError.uriTooLong(maxHeaderSize);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return AppError.requestTimeout();
    default:
      return AppError.validation([{ field: 'request', message: 'the request is not valid HTTP/1.1' }]);
  }
}

function writeRawError(socket: Duplex, appError: AppError, headers: string[] = [], withBody = true): void {
  const status = httpStatusOf(appError.code);
  const envelope = JSON.stringify(errorEnvelope(appError));
  // The answer to a HEAD request has the headers of the full answer and no body (RFC 9110).
  const body = withBody ? envelope : '';
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(envelope)}`,
      `X-Request-Id: ${requestIdOf(undefined)}`,
      ...headers,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
  // Read (and drop) whatever the client is still sending: closing with unread data would reset the
  // connection, and the client would lose this answer (e.g. after headers over the size limit).
  if (socket instanceof net.Socket) {
    socket.resume();
    socket.setTimeout(DRAIN_AFTER_ERROR_MS, () => socket.destroy());
  }
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
  errorFor: (error: NodeJS.ErrnoException, request: RefusedRequest) => AppError,
  connectError: AppError = AppError.methodNotAllowed('CONNECT', ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']),
): void {
  // The parser reports every further chunk of a request it gave up on as another clientError: the
  // first answer stands, the rest of the request is read and dropped (see writeRawError).
  const answered = new WeakSet<Duplex>();
  // The first bytes of each connection's current request, so that a HEAD refused for its headers
  // (too large) gets no body: a client would read one as the start of its next answer; and whether
  // its request line ended, which tells a target too long (414) from headers too large (431).
  // A chunk starts a request when it is the connection's first, or the first after an answer was sent
  // (the answer of the request before: `answering`, set when Node hands it to 'request').
  const requestStarts = new WeakMap<Duplex, { awaiting: boolean; answering: ServerResponse | undefined; start: string; lineEnded: boolean }>();
  // An HTTPS server's 'connection' is the encrypted socket; HTTP is parsed from 'secureConnection' ones.
  server.on(server instanceof tls.Server ? 'secureConnection' : 'connection', (socket: Duplex) => {
    const state = { awaiting: true, answering: undefined as ServerResponse | undefined, start: '', lineEnded: false };
    requestStarts.set(socket, state);
    socket.on('data', (chunk: Buffer) => {
      if (state.answering?.writableFinished === true) {
        state.awaiting = true;
        state.answering = undefined;
      }
      if (state.awaiting) {
        state.awaiting = false;
        state.start = chunk.toString('latin1', 0, 5);
        state.lineEnded = chunk.includes(LINE_FEED);
      } else if (!state.lineEnded) {
        state.lineEnded = chunk.includes(LINE_FEED);
      }
    });
  });
  // Node parses a chunk before this file's 'data' listener sees it: a request parsed from the chunk
  // that follows an answer arrives here first, and leaves that chunk to be taken as a start.
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const state = requestStarts.get(request.socket);
    if (!state) return;
    if (state.answering?.writableFinished === true) state.awaiting = true;
    state.answering = response;
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket) && error.code !== 'ECONNRESET') return;
    answered.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const state = requestStarts.get(socket);
    writeRawError(socket, errorFor(error, { requestLineEnded: state?.lineEnded ?? true }), [], state?.start !== 'HEAD ');
  });
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  server.on('connect', (_request, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const allowed = connectError.details?.allowed;
    writeRawError(socket, connectError, Array.isArray(allowed) ? [`Allow: ${allowed.join(', ')}`] : []);
  });
}
