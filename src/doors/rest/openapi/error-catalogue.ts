import { httpStatusOf, type ErrorCode } from '../../../foundation/errors/app-error';
import { PERMISSIONS } from '../../../platform/auth/permissions';
import type { JsonSchema } from './json-schema';

interface ErrorEntry {
  /** When a client sees this code. */
  readonly when: string;
  /** The shape of `error.details`; absent when the code carries none. */
  readonly details?: JsonSchema;
}

const requestId = { type: 'string', description: 'The X-Request-Id of the failed request, for support.' };

/**
 * What every error code means and which details it carries (spec section 7, D9–D13). A Record over
 * the closed ErrorCode union: adding a code without documenting it here fails to compile.
 */
export const ERROR_CATALOGUE: Record<ErrorCode, ErrorEntry> = {
  UNAUTHORIZED: { when: 'No Authorization header (or a key sent anywhere but the header).' },
  INVALID_API_KEY: { when: 'The key is malformed, unknown or revoked.' },
  API_KEY_EXPIRED: { when: 'The key has passed its expiry date.' },
  FORBIDDEN: {
    when: 'The key is valid but lacks the permission the operation needs.',
    details: {
      type: 'object',
      properties: {
        requiredPermission: { type: 'string', enum: [...PERMISSIONS] },
        currentPermissions: { type: 'array', items: { type: 'string' } },
      },
      required: ['requiredPermission', 'currentPermissions'],
    },
  },
  IP_NOT_ALLOWED: {
    when: "The organization's IP allowlist (STRICT) does not include the caller's address.",
    details: { type: 'object', properties: { ip: { type: 'string' } }, required: ['ip'] },
  },
  HTTPS_REQUIRED: { when: 'The request came over plain HTTP (or X-Forwarded-Proto is not https behind a trusted proxy).' },
  EVENT_NOT_FOUND: {
    when: "No event with this slug in the key's organization (another organization's event answers the same).",
    details: { type: 'object', properties: { slug: { type: 'string' } }, required: ['slug'] },
  },
  BOOKING_NOT_FOUND: { when: "No booking with this id in the key's organization.", details: { type: 'object' } },
  NOT_FOUND: { when: 'No route has this path.' },
  WEBHOOK_ENDPOINT_NOT_FOUND: {
    when: "GraphQL only: no webhook endpoint with this id in the key's organization.",
    details: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
  WEBHOOK_MESSAGE_NOT_FOUND: {
    when: 'GraphQL only: no webhook message with this id for this endpoint.',
    details: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
  TICKET_TYPE_NOT_FOUND: {
    when: "GraphQL only: no ticket type with this id in the key's organization.",
    details: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
  EVENT_NOT_PUBLISHED: {
    when: 'GraphQL only: a booking was asked for an event that is not PUBLISHED.',
    details: { type: 'object', properties: { slug: { type: 'string' }, status: { type: 'string' } }, required: ['slug', 'status'] },
  },
  BOOKING_ALREADY_CANCELLED: {
    when: 'GraphQL only: the booking was cancelled before.',
    details: { type: 'object', properties: { id: { type: 'string' }, cancelledAt: { type: ['string', 'null'] } }, required: ['id'] },
  },
  TICKET_TYPE_HAS_SALES: {
    when: 'GraphQL only: a ticket type with confirmed sales cannot be removed.',
    details: { type: 'object', properties: { id: { type: 'string' }, sold: { type: 'integer' } }, required: ['id', 'sold'] },
  },
  METHOD_NOT_ALLOWED: {
    when: 'The path exists but not with this method; the Allow header lists the methods it has.',
    details: { type: 'object', properties: { allowed: { type: 'array', items: { type: 'string' } } }, required: ['allowed'] },
  },
  VALIDATION_ERROR: {
    when: 'The body, a path or query parameter is invalid; every failing field is listed.',
    details: {
      type: 'object',
      properties: {
        errors: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: {
              field: { type: 'string', description: 'The field or parameter, e.g. "startDate", "limit", "body".' },
              message: { type: 'string' },
            },
            required: ['field', 'message'],
          },
        },
      },
      required: ['errors'],
    },
  },
  QUERY_TOO_COMPLEX: {
    when:
      'GraphQL only: the query is nested deeper than GRAPHQL_MAX_DEPTH, costs more than GRAPHQL_MAX_COST (or too much to estimate), or the document is longer than 64 KiB, has more than 10,000 tokens or nests brackets more than 64 deep.',
    details: {
      type: 'object',
      properties: { limit: { type: 'string', enum: ['depth', 'cost', 'size', 'tokens'] }, maximum: { type: 'integer' }, cost: { type: 'integer' } },
      required: ['limit', 'maximum'],
    },
  },
  EVENT_ALREADY_PUBLISHED: {
    when: 'The event is PUBLISHED or COMPLETED and the request changes slug or startDate; nothing is applied.',
    details: {
      type: 'object',
      properties: { immutableFields: { type: 'array', items: { type: 'string', enum: ['slug', 'startDate'] }, minItems: 1 } },
      required: ['immutableFields'],
    },
  },
  EVENT_HAS_BOOKINGS: {
    when: 'The event has confirmed bookings; cancel it (status CANCELLED) instead.',
    details: { type: 'object', properties: { bookingCount: { type: 'integer', minimum: 1 } }, required: ['bookingCount'] },
  },
  SOLD_OUT: { when: 'The booking would exceed the event capacity or the ticket quantity.', details: { type: 'object' } },
  IDEMPOTENCY_KEY_IN_USE: {
    when: 'A request with the same Idempotency-Key is still running; retry after the Retry-After header (nothing was stored).',
    details: {
      type: 'object',
      properties: { idempotencyKey: { type: 'string' }, retryAfterSeconds: { type: 'integer', minimum: 0 } },
      required: ['idempotencyKey', 'retryAfterSeconds'],
    },
  },
  IDEMPOTENCY_KEY_REUSED: {
    when: 'The Idempotency-Key was used before with another request (method, path and body, or GraphQL document and variables).',
    details: { type: 'object', properties: { idempotencyKey: { type: 'string' } }, required: ['idempotencyKey'] },
  },
  PAYLOAD_TOO_LARGE: {
    when: 'The body is larger than 1 MiB.',
    details: { type: 'object', properties: { limitBytes: { type: 'integer' } }, required: ['limitBytes'] },
  },
  RATE_LIMITED: {
    when: "The organization's request budget for this minute is spent (or too many failed authentications from this address).",
    details: { type: 'object', properties: { retryAfterSeconds: { type: 'integer', minimum: 0 } }, required: ['retryAfterSeconds'] },
  },
  SERVICE_UNAVAILABLE: {
    when: 'The database is unreachable; retry shortly.',
    details: { type: 'object', properties: { requestId }, required: ['requestId'] },
  },
  INTERNAL_ERROR: {
    when: 'An unexpected failure; the message is generic and never shows a stack or SQL.',
    details: { type: 'object', properties: { requestId }, required: ['requestId'] },
  },
};

/** The component name of a code's envelope: VALIDATION_ERROR -> ValidationError, FORBIDDEN -> ForbiddenError. */
export function errorSchemaName(code: ErrorCode): string {
  const pascal = code
    .toLowerCase()
    .split('_')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');
  return pascal.endsWith('Error') ? pascal : `${pascal}Error`;
}

/** The envelope `{"error": {code, message, details}}` of one code. */
export function errorEnvelopeSchema(code: ErrorCode): JsonSchema {
  const { when, details } = ERROR_CATALOGUE[code];
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
    description: `${httpStatusOf(code)} ${code}: ${when}`,
    properties: { error: body },
    required: ['error'],
  };
}
