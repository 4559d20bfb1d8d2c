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
 * Bounds of a GraphQL request checked before it is parsed: the document's size, token count and
 * bracket nesting (400 QUERY_TOO_COMPLEX), and the nesting of variables sent in a GET query string
 * (POST bodies are bounded when they are read). `source` is the query string (GET) or the body (POST).
 */
export function assertGraphqlBounds(method: string, source: Record<string, unknown>): void {
  const document = source.query;
  if (typeof document === 'string') {
    const violation = documentBoundViolation(document);
    if (violation) throw AppError.queryTooComplex(violation.message, { limit: violation.limit, maximum: violation.maximum });
  }
  if (method === 'GET') {
    for (const name of ['variables', 'extensions']) {
      const violation = jsonBoundViolation(parsedParameter(source[name]));
      if (violation) throw AppError.validation([{ field: formatInputPath(violation.path, name), message: violation.message }]);
    }
  }
}
