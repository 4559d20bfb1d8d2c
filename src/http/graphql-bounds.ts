import type { RequestHandler } from 'express';
import { AppError } from '../foundation/errors/app-error';
import { documentBoundViolation, formatInputPath, jsonBoundViolation } from '../foundation/validation/input-bounds';

/** A GET request's `variables` / `extensions` parameter, as Apollo will read it (JSON text). */
function parsedParameter(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined; // Apollo reports it
  }
}

/**
 * Bounds of a GraphQL request checked before Apollo parses it: the document's size, token count and
 * bracket nesting (400 QUERY_TOO_COMPLEX), and the nesting of variables sent in a GET query string
 * (POST bodies are bounded by jsonBody).
 */
export const graphqlRequestBounds: RequestHandler = (req, _res, next) => {
  const source: Record<string, unknown> = (req.method === 'GET' ? req.query : (req.body as Record<string, unknown> | undefined)) ?? {};
  const document = source.query;
  if (typeof document === 'string') {
    const violation = documentBoundViolation(document);
    if (violation) {
      next(AppError.queryTooComplex(violation.message, { limit: violation.limit, maximum: violation.maximum }));
      return;
    }
  }
  if (req.method === 'GET') {
    for (const name of ['variables', 'extensions']) {
      const violation = jsonBoundViolation(parsedParameter(req.query[name]));
      if (violation) {
        next(AppError.validation([{ field: formatInputPath(violation.path, name), message: violation.message }]));
        return;
      }
    }
  }
  next();
};
