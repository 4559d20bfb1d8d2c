import { AppError } from '../foundation/errors/app-error';
import { formatInputPath, jsonBoundViolation } from '../foundation/validation/input-bounds';

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
 * Bounds of a GraphQL request checked when it is read: the nesting of variables sent in a GET query
 * string (POST bodies are bounded when they are read). `source` is the query string (GET) or the body
 * (POST). The document's own bounds (size, tokens, bracket nesting: 400 QUERY_TOO_COMPLEX) are the
 * door's first check (src/doors/graphql/graphql-execution.ts), answered as GraphQL request errors.
 */
export function assertGraphqlBounds(method: string, source: Record<string, unknown>): void {
  if (method === 'GET') {
    for (const name of ['variables', 'extensions']) {
      const violation = jsonBoundViolation(parsedParameter(source[name]));
      if (violation) throw AppError.validation([{ field: formatInputPath(violation.path, name), message: violation.message }]);
    }
  }
}
