import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error';
import { toAppError } from '../errors/to-app-error';
import { MAX_BODY_BYTES } from './json-body';
import { sendError } from './send-error';

interface HttpError {
  type?: string;
  status?: number;
  expose?: boolean;
}

/** Errors raised by Express and body-parser before our code runs, as AppErrors. */
function transportError(error: unknown): AppError | undefined {
  // Express decodes path parameters itself; a malformed %-escape there is the client's, not ours.
  if (error instanceof URIError) {
    return AppError.validation([{ field: 'path', message: 'the URL path is not valid percent-encoded UTF-8' }]);
  }
  const { type, status, expose } = (error ?? {}) as HttpError;
  switch (type) {
    case 'entity.parse.failed':
      return AppError.validation([{ field: 'body', message: 'the request body is not valid JSON' }]);
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${MAX_BODY_BYTES} bytes`, { limitBytes: MAX_BODY_BYTES });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return AppError.validation([{ field: 'body', message: 'the request body must be UTF-8 JSON' }]);
    default:
      // The router's percent-decoding of a path parameter (`/v1/events/%`): the client's mistake.
      if (error instanceof URIError && status === 400) {
        return AppError.validation([{ field: 'path', message: 'the URL path is not valid percent-encoding' }]);
      }
      if (typeof status === 'number' && status >= 400 && status < 500 && expose) {
        return AppError.validation([{ field: 'request', message: 'the request could not be read' }]);
      }
      return undefined;
  }
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const appError = transportError(error) ?? toAppError(error, res.locals.requestId as string);
    if (appError.code === 'INTERNAL_ERROR' || appError.code === 'SERVICE_UNAVAILABLE') {
      logger.error({ err: error, requestId: res.locals.requestId }, 'request failed');
    }
    sendError(res, appError);
  };
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
};
