import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, echo, httpStatusOf, isServerFailure, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS, type ErrorCode, type ErrorDetails } from '../foundation/errors/app-error';
import { toAppError } from '../foundation/errors/to-app-error';
import { graphqlMediaType } from '../doors/graphql/graphql-http';
import { graphqlExtensionsOf } from '../platform/graphql/graphql-errors';
import { MAX_BODY_BYTES } from '../platform/web/json-body';

/**
 * The HTTP side of error mapping, in one file: what Express and body-parser raise before our code
 * runs, the REST envelope, and the answer written for any error that reaches Express (in the shape
 * of the door that was asked: GraphQL errors before Apollo runs, e.g. a missing key, answer as
 * GraphQL does). GraphQL execution errors are mapped in src/platform/graphql/graphql-errors.ts.
 */

interface HttpError {
  type?: string;
  status?: number;
  expose?: boolean;
}

/** The REST error envelope: {"error": {"code", "message", "details"}}. */
export function errorEnvelope(error: AppError): { error: { code: ErrorCode; message: string; details?: ErrorDetails } } {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
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
      return AppError.payloadTooLarge(MAX_BODY_BYTES);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return AppError.validation([{ field: 'body', message: 'the request body must be UTF-8 JSON' }]);
    default:
      if (typeof status === 'number' && status >= 400 && status < 500 && expose) {
        return AppError.validation([{ field: 'request', message: 'the request could not be read' }]);
      }
      return undefined;
  }
}

/** Which door answers: errors are written in its shape. */
export type Door = 'rest' | 'graphql';

/**
 * Writes an error in the door's shape: the REST envelope, or a GraphQL `errors` array; the status of
 * its code, Retry-After when it has one. Headers already set (X-Request-Id, RateLimit-*) stay.
 */
export function writeError(res: ServerResponse, door: Door | undefined, error: AppError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = httpStatusOf(error.code);
  if (typeof error.details?.retryAfterSeconds === 'number') res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
  if (error.code === 'SERVICE_UNAVAILABLE') res.setHeader('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
  const body = JSON.stringify(door === 'graphql' ? { errors: [{ message: error.message, extensions: graphqlExtensionsOf(error) }] } : errorEnvelope(error));
  // A GraphQL answer is written in the media type the client asked for, as the door's own.
  res.setHeader('Content-Type', door === 'graphql' ? graphqlMediaType(res.req.headers.accept) : 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** Writes an error in the caller's door's shape (see writeError). */
export function sendError(res: Response, error: AppError): void {
  writeError(res, res.locals.door, error);
}

/**
 * Any error that ends a request, as its answer: mapped to an AppError (unknown failures become
 * INTERNAL_ERROR with the request id, and are logged once with their stack), written in the door's shape.
 */
export function answerError(logger: Logger, res: ServerResponse, door: Door | undefined, requestId: string, error: unknown): void {
  const appError = transportError(error) ?? toAppError(error, requestId);
  if (isServerFailure(appError.code)) logger.error({ err: error, requestId }, 'request failed');
  writeError(res, door, appError);
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(AppError.notFound(`No route for ${echo(req.method)} ${echo(req.path)}`));
};
