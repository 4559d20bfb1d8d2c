import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { AppError } from '../../foundation/errors/app-error';
import { formatInputPath, jsonBoundViolation } from '../../foundation/validation/input-bounds';

export const MAX_BODY_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], strict: false });

/**
 * Bodies the fast lane read (a POST /graphql it then left to Express) that are not JSON: the parse
 * error, in body-parser's shape, for the error handler to map as it maps body-parser's own. A body
 * that parsed is on `req.body`, and body-parser leaves a request whose body was read alone.
 */
const unparsable = new WeakMap<IncomingMessage, Error>();

/**
 * A UTF-8 JSON body read before Express saw the request, as body-parser would have made it (BOM
 * dropped, empty means {}, any JSON value): the value, or undefined when it is not JSON (then Express
 * answers the parse error).
 */
export function parseReadBody(req: IncomingMessage, text: string): { value: unknown } | undefined {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    const value: unknown = json.length === 0 ? {} : JSON.parse(json);
    (req as IncomingMessage & { body?: unknown }).body = value;
    return { value };
  } catch (error) {
    unparsable.set(req, Object.assign(error instanceof Error ? error : new SyntaxError(String(error)), { type: 'entity.parse.failed', status: 400, expose: true }));
    return undefined;
  }
}

/**
 * JSON bodies up to 1 MiB, nested at most MAX_JSON_DEPTH deep: a body past a bound is 400 naming the
 * field, before any code walks it. Errors (malformed, too large) are mapped by the error handler.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  const parseError = unparsable.get(req);
  if (parseError) {
    next(parseError);
    return;
  }
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
