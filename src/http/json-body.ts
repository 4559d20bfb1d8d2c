import express, { type RequestHandler } from 'express';
import { AppError } from '../errors/app-error';
import { formatInputPath, jsonBoundViolation } from '../validation/input-bounds';

export const MAX_BODY_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], strict: false });

/**
 * JSON bodies up to 1 MiB, nested at most MAX_JSON_DEPTH deep: a body past a bound is 400 naming the
 * field, before any code walks it. Errors (malformed, too large) are mapped by the error handler.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  parseJson(req, res, (error?: unknown) => {
    if (error) {
      next(error);
      return;
    }
    const violation = jsonBoundViolation(req.body);
    if (violation) {
      next(AppError.validation([{ field: formatInputPath(violation.path) || 'body', message: violation.message }]));
      return;
    }
    next();
  });
};
