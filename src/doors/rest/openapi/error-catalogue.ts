import { ERROR_TABLE, httpStatusOf, type DetailsSchema, type ErrorCode, type ErrorCodeEntry, type SchemaVocabulary } from '../../../foundation/errors/error-codes';
import { PERMISSIONS } from '../../../platform/auth/permissions';
import type { JsonSchema } from './json-schema';

/** What the OpenAPI document says of one code: when a client sees it, and the JSON schema of its details. */
export interface ErrorEntry {
  readonly when: string;
  /** The shape of `error.details`; absent when the code carries none. */
  readonly details?: JsonSchema;
}

/** The lists a details schema names with `enumOf` (error-codes.ts), owned by rungs above foundation. */
const VOCABULARIES: Record<SchemaVocabulary, readonly string[]> = { permission: PERMISSIONS };

/** A details schema of the table as JSON schema: each `enumOf` replaced, in place, by the `enum` it names. */
export function renderDetailsSchema(schema: DetailsSchema): JsonSchema {
  const render = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(render);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([keyword, inner]) =>
        keyword === 'enumOf' ? ['enum', [...VOCABULARIES[inner as SchemaVocabulary]]] : [keyword, render(inner)],
      ),
    );
  };
  return render(schema) as JsonSchema;
}

/** The OpenAPI catalogue of a table of codes: every code, in the table's order, its schema rendered. */
export function errorCatalogueOf<Code extends string>(table: Readonly<Record<Code, ErrorCodeEntry>>): Record<Code, ErrorEntry> {
  const entries = Object.entries<ErrorCodeEntry>(table).map(([code, { when, details }]) => [
    code,
    details === undefined ? { when } : { when, details: renderDetailsSchema(details) },
  ]);
  return Object.fromEntries(entries) as Record<Code, ErrorEntry>;
}

/**
 * What every error code means and which details it carries (spec section 7, D9–D13), generated from
 * the one table of codes, src/foundation/errors/error-codes.ts: no code is listed here.
 */
export const ERROR_CATALOGUE: Record<ErrorCode, ErrorEntry> = errorCatalogueOf(ERROR_TABLE);

/** The component name of a code's envelope: VALIDATION_ERROR -> ValidationError, FORBIDDEN -> ForbiddenError. */
export function errorSchemaName(code: string): string {
  const pascal = code
    .toLowerCase()
    .split('_')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');
  return pascal.endsWith('Error') ? pascal : `${pascal}Error`;
}

/** The envelope `{"error": {code, message, details}}` of one code of the table. */
export function errorEnvelopeSchema(code: ErrorCode): JsonSchema {
  return envelopeSchema(code, httpStatusOf(code), ERROR_CATALOGUE[code]);
}

/** The envelope of any code, given its status and catalogue entry. */
export function envelopeSchema(code: string, status: number, { when, details }: ErrorEntry): JsonSchema {
  const body: JsonSchema = {
    type: 'object',
    properties: {
      code: { type: 'string', const: code },
      message: { type: 'string', description: 'Readable and safe to show; do not parse it.' },
      ...(details ? { details } : {}),
    },
    required: details ? ['code', 'message', 'details'] : ['code', 'message'],
  };
  return {
    type: 'object',
    description: `${status} ${code}: ${when}`,
    properties: { error: body },
    required: ['error'],
  };
}
