import type { Response } from 'express';
import { errorEnvelope, graphqlExtensionsOf, httpStatusOf, type AppError } from '../errors/app-error';

export type Door = 'rest' | 'graphql';

/** What a 503 tells clients to wait before retrying: the database is usually back within seconds. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** Writes an error in the caller's door's shape: the REST envelope, or a GraphQL `errors` array. */
export function sendError(res: Response, error: AppError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const door: Door = res.locals.door === 'graphql' ? 'graphql' : 'rest';
  res.status(httpStatusOf(error.code));
  if (typeof error.details?.retryAfterSeconds === 'number') {
    res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
  }
  if (error.code === 'SERVICE_UNAVAILABLE') res.setHeader('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
  if (door === 'graphql') res.json({ errors: [{ message: error.message, extensions: graphqlExtensionsOf(error) }] });
  else res.json(errorEnvelope(error));
}
