import type { Response } from 'express';
import { errorEnvelope, graphqlExtensionsOf, httpStatusOf, type AppError } from '../errors/app-error';

export type Door = 'rest' | 'graphql';

/** Writes an error in the caller's door's shape: the REST envelope, or a GraphQL `errors` array. */
export function sendError(res: Response, error: AppError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const door: Door = res.locals.door === 'graphql' ? 'graphql' : 'rest';
  res.status(httpStatusOf(error.code));
  if (error.code === 'RATE_LIMITED' && typeof error.details?.retryAfterSeconds === 'number') {
    res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
  }
  if (door === 'graphql') res.json({ errors: [{ message: error.message, extensions: graphqlExtensionsOf(error) }] });
  else res.json(errorEnvelope(error));
}
