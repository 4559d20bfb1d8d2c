import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../../foundation/errors/app-error';
import { formatInputPath, jsonBoundViolation } from '../../foundation/validation/input-bounds';

export const MAX_BODY_BYTES = 1024 * 1024;

const parseJsonBody = promisify<IncomingMessage, ServerResponse>(express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], strict: false }));

/**
 * A JSON body up to 1 MiB, nested at most MAX_JSON_DEPTH deep, read once: the value (undefined for a
 * request without a JSON body). A body past a bound is 400 naming the field, before any code walks it;
 * body-parser's own errors (malformed, too large, another charset) reject as they are, for the error
 * writer to map.
 */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  // body-parser's own errors reject as they are: the error writer maps them (src/http/error-handler.ts).
  await parseJsonBody(req, res);
  const body = (req as Request).body as unknown;
  const violation = jsonBoundViolation(body);
  if (violation) throw AppError.validation([{ field: formatInputPath(violation.path) || 'body', message: violation.message }]);
  return body;
}

/** readJsonBody as Express middleware (the dashboard's endpoints): the value on `req.body`. */
export const jsonBody: RequestHandler = (req, res, next) => {
  readJsonBody(req, res).then(() => next(), next);
};
