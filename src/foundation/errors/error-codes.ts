/**
 * The one table of error codes (D13): every code a client can see, in REST and in GraphQL alike, with
 * its HTTP status, when a client sees it, the JSON schema of its `details` as the API documents it,
 * and (for the compiler only) the type of the details an AppError of that code carries.
 *
 * Everything else is derived from here: the ErrorCode union and the details each code takes
 * (app-error.ts), the HTTP status of both doors (httpStatusOf), the GraphQL `extensions.code` (the
 * AppError's code), and the OpenAPI error catalogue (src/doors/rest/openapi/error-catalogue.ts renders
 * these schemas). A new code is one entry below.
 */

import { code, type DetailsOf, type ErrorCodeEntry, type FieldError } from './error-code-entry';
import { QUEUE_ERROR_TABLE } from './queue-error-codes';

export type { DetailsSchema, DetailsOf, ErrorCodeEntry, FieldError, SchemaVocabulary, TypedErrorCodeEntry } from './error-code-entry';

const requestId = { type: 'string', description: 'The X-Request-Id of the failed request, for support.' };

/** Every code, by what it is about (spec section 7, D9–D13). */
export const ERROR_TABLE = {
  // Authentication and access (D2, D9, D10, D11)
  UNAUTHORIZED: code({ status: 401, when: 'No Authorization header (or a key sent anywhere but the header).' }),
  INVALID_API_KEY: code({ status: 401, when: 'The key is malformed, unknown or revoked.' }),
  API_KEY_EXPIRED: code({ status: 401, when: 'The key has passed its expiry date.' }),
  FORBIDDEN: code<
    | { requiredPermission: string; currentPermissions: string[] }
    | { requiredSession: 'ADMIN' | 'MEMBER'; currentPermissions: string[] }
    | { reason: string }
  >({
    status: 403,
    when: 'The key is valid but lacks the permission the operation needs.',
    details: {
      type: 'object',
      properties: {
        requiredPermission: { type: 'string', enumOf: 'permission' },
        currentPermissions: { type: 'array', items: { type: 'string' } },
      },
      required: ['requiredPermission', 'currentPermissions'],
    },
  }),
  IP_NOT_ALLOWED: code<{ ip: string | undefined }>({
    status: 403,
    when: "The organization's IP allowlist (STRICT) does not include the caller's address.",
    details: { type: 'object', properties: { ip: { type: 'string' } }, required: ['ip'] },
  }),
  HTTPS_REQUIRED: code({
    status: 403,
    when: 'The request came over plain HTTP (or X-Forwarded-Proto is not https behind a trusted proxy).',
  }),

  // Missing things (D1: another organization's row answers exactly like a missing one)
  EVENT_NOT_FOUND: code<{ slug: string }>({
    status: 404,
    when: "No event with this slug in the key's organization (another organization's event answers the same).",
    details: { type: 'object', properties: { slug: { type: 'string' } }, required: ['slug'] },
  }),
  BOOKING_NOT_FOUND: code<{ id: string }>({ status: 404, when: "No booking with this id in the key's organization.", details: { type: 'object' } }),
  TICKET_TYPE_NOT_FOUND: code<{ id: string }>({
    status: 404,
    when: "No ticket type with this id in the key's organization (or of this event, for a booking).",
    details: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  }),
  TICKET_NOT_FOUND: code({
    status: 404,
    when: "No booking of the key's organization has this ticket code (another organization's code answers the same; D29).",
  }),
  WAITLIST_ENTRY_NOT_FOUND: code<{ id: string }>({
    status: 404,
    when: "No waiting-list entry with this id in the key's organization (another organization's entry answers the same).",
    details: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  }),
  WEBHOOK_ENDPOINT_NOT_FOUND: code<{ id: string }>({
    status: 404,
    when: "GraphQL only: no webhook endpoint with this id in the key's organization.",
    details: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  }),
  WEBHOOK_MESSAGE_NOT_FOUND: code<{ id: string }>({
    status: 404,
    when: 'GraphQL only: no webhook message with this id for this endpoint.',
    details: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  }),
  SERIES_NOT_FOUND: code<{ slug: string }>({
    status: 404,
    when: "No series with this slug in the key's organization (another organization's series answers the same) (D28).",
    details: { type: 'object', properties: { slug: { type: 'string' } }, required: ['slug'] },
  }),
  NOT_FOUND: code<{ id: string } | undefined>({ status: 404, when: 'No route has this path.' }),
  METHOD_NOT_ALLOWED: code<{ allowed: string[] }>({
    status: 405,
    when: 'The path exists but not with this method; the Allow header lists the methods it has.',
    details: { type: 'object', properties: { allowed: { type: 'array', items: { type: 'string' } } }, required: ['allowed'] },
  }),

  // Bad input (D4)
  VALIDATION_ERROR: code<{ errors: FieldError[] }>({
    status: 400,
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
  }),
  QUERY_TOO_COMPLEX: code<{ limit: 'depth' | 'cost' | 'size' | 'tokens'; maximum: number; cost?: number }>({
    status: 400,
    when:
      'GraphQL only: the query is nested deeper than GRAPHQL_MAX_DEPTH, costs more than GRAPHQL_MAX_COST (or too much to estimate), or the document is longer than 64 KiB, has more than 10,000 tokens or nests brackets more than 64 deep.',
    details: {
      type: 'object',
      properties: { limit: { type: 'string', enum: ['depth', 'cost', 'size', 'tokens'] }, maximum: { type: 'integer' }, cost: { type: 'integer' } },
      required: ['limit', 'maximum'],
    },
  }),

  // State rules (D3, D6, D7)
  EVENT_ALREADY_PUBLISHED: code<{ immutableFields: string[] }>({
    status: 409,
    when: 'The event is PUBLISHED or COMPLETED and the request changes slug or startDate; nothing is applied.',
    details: {
      type: 'object',
      properties: { immutableFields: { type: 'array', items: { type: 'string', enum: ['slug', 'startDate'] }, minItems: 1 } },
      required: ['immutableFields'],
    },
  }),
  EVENT_HAS_BOOKINGS: code<{ bookingCount: number }>({
    status: 409,
    when: 'The event has confirmed bookings; cancel it (status CANCELLED) instead.',
    details: { type: 'object', properties: { bookingCount: { type: 'integer', minimum: 1 } }, required: ['bookingCount'] },
  }),
  SOLD_OUT: code<
    { limitedBy: 'capacity' | 'ticketType'; available: number; requested: number; ticketTypeId?: string } | { queue: 'SOLD_OUT'; soldOutAt: string | null }
  >({
    status: 409,
    when: 'The booking (or an exchange to this event, D29) would exceed the event capacity or the ticket quantity; or joinQueue on a sold-out queue (details.queue, D30).',
    details: { type: 'object' },
  }),
  EVENT_NOT_PUBLISHED: code<{ slug: string; status: string }>({
    status: 409,
    when: 'A booking (or an exchange to it, D29) was asked for an event that is not PUBLISHED.',
    details: { type: 'object', properties: { slug: { type: 'string' }, status: { type: 'string' } }, required: ['slug', 'status'] },
  }),
  BOOKING_ALREADY_CANCELLED: code<{ id: string; cancelledAt: string | null }>({
    status: 409,
    when: 'The booking was cancelled before.',
    details: { type: 'object', properties: { id: { type: 'string' }, cancelledAt: { type: ['string', 'null'] } }, required: ['id'] },
  }),
  HOLD_EXPIRED: code<{ id: string; expiresAt: string | null }>({
    status: 409,
    when: 'The hold ran out at expiresAt (D20): its seats are free again, whether or not the booking is stored EXPIRED yet.',
    details: { type: 'object', properties: { id: { type: 'string' }, expiresAt: { type: ['string', 'null'] } }, required: ['id', 'expiresAt'] },
  }),
  BOOKING_NOT_HELD: code<{ id: string; status: string }>({
    status: 409,
    when: 'Only a HELD booking can be confirmed; this one is CANCELLED (D20).',
    details: { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string' } }, required: ['id', 'status'] },
  }),
  // Waiting list (D21)
  SEATS_AVAILABLE: code<{ available: number | null; requested: number; limitedBy: 'capacity' | 'ticketType' | null; ticketTypeId?: string }>({
    status: 409,
    when: 'joinWaitlist on an event (or ticket type) that has the seats free now: book them instead (D21). details.available is what is free.',
    details: {
      type: 'object',
      properties: {
        available: { type: ['integer', 'null'], description: 'Seats free now; null when nothing limits them.' },
        requested: { type: 'integer' },
        limitedBy: { type: ['string', 'null'], enum: ['capacity', 'ticketType', null] },
        ticketTypeId: { type: 'string' },
      },
      required: ['available', 'requested', 'limitedBy'],
    },
  }),
  WAITLIST_ENTRY_NOT_WAITING: code<{ id: string; status: string }>({
    status: 409,
    when: 'leaveWaitlist on an entry that is CONVERTED (it has a confirmed booking: cancel that instead) or EXPIRED (its offer lapsed) (D21).',
    details: { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string', enum: ['CONVERTED', 'EXPIRED'] } }, required: ['id', 'status'] },
  }),
  // Check-in at the door (D22)
  ALREADY_CHECKED_IN: code<{ checkedInAt: string }>({
    status: 409,
    when: 'The booking was checked in before (details.checkedInAt says when); a scan counts once.',
    details: { type: 'object', properties: { checkedInAt: { type: 'string', format: 'date-time' } }, required: ['checkedInAt'] },
  }),
  BOOKING_NOT_CONFIRMED: code<{ status: string }>({
    status: 409,
    when: 'Only a CONFIRMED booking can be checked in (or have its check-in undone), transferred or exchanged (D29); details.status is what it is: HELD, CANCELLED or EXPIRED.',
    details: { type: 'object', properties: { status: { type: 'string', enum: ['HELD', 'CANCELLED', 'EXPIRED'] } }, required: ['status'] },
  }),
  NOT_CHECKED_IN: code({
    status: 409,
    when: 'undoCheckIn on a CONFIRMED booking that is not checked in: there is nothing to undo.',
  }),
  // Ticket codes, transfers and exchanges (D29)
  WRONG_EVENT: code<{ eventSlug: string }>({
    status: 409,
    when: "checkInByCode: the code is a ticket of another event of the organization (details.eventSlug is the ticket's); nothing is checked in.",
    details: { type: 'object', properties: { eventSlug: { type: 'string' } }, required: ['eventSlug'] },
  }),
  TICKET_TRANSFERRED: code<{ transferredAt: string }>({
    status: 409,
    when: 'checkInByCode: the code was replaced by a transfer or an exchange at details.transferredAt (the booking has a new code); answered before any other check, at any gate.',
    details: { type: 'object', properties: { transferredAt: { type: 'string', format: 'date-time' } }, required: ['transferredAt'] },
  }),
  BOOKING_CHECKED_IN: code<{ checkedInAt: string }>({
    status: 409,
    when: 'A checked-in booking (details.checkedInAt) cannot be transferred or exchanged (D29).',
    details: { type: 'object', properties: { checkedInAt: { type: 'string', format: 'date-time' } }, required: ['checkedInAt'] },
  }),
  TRANSFER_LOCKED: code<{ lockedAt: string }>({
    status: 409,
    when: "Transfers and exchanges of the event's bookings stopped at details.lockedAt: its start less the organization's transferLockMinutes (D29; for an exchange, the event the booking leaves).",
    details: { type: 'object', properties: { lockedAt: { type: 'string', format: 'date-time' } }, required: ['lockedAt'] },
  }),
  TICKET_TYPE_HAS_SALES: code<{ id: string; sold: number }>({
    status: 409,
    when: 'GraphQL only: a ticket type with confirmed sales cannot be removed.',
    details: { type: 'object', properties: { id: { type: 'string' }, sold: { type: 'integer' } }, required: ['id', 'sold'] },
  }),
  // Event series (D28)
  SERIES_CHANGED: code<{ expectedVersion: number; version: number }>({
    status: 409,
    when:
      'updateSeries with an expectedVersion the series no longer has: it changed since the preview (a change of the series, a booking that made or ended an occurrence\'s bookings, an occurrence detached), so the plan would be another one. Nothing was changed: preview again.',
    details: {
      type: 'object',
      properties: { expectedVersion: { type: 'integer' }, version: { type: 'integer', description: 'The version the series has now.' } },
      required: ['expectedVersion', 'version'],
    },
  }),
  SERIES_HAS_BOOKINGS: code<{ bookedOccurrences: number }>({
    status: 409,
    when: 'deleteSeries while occurrences have confirmed bookings; nothing was deleted (cancel or delete those dates first).',
    details: { type: 'object', properties: { bookedOccurrences: { type: 'integer', minimum: 1 } }, required: ['bookedOccurrences'] },
  }),

  // The on-sale queue (D30)
  ...QUEUE_ERROR_TABLE,

  // Idempotent retries (D17)
  IDEMPOTENCY_KEY_IN_USE: code<{ idempotencyKey: string; retryAfterSeconds: number }>({
    status: 409,
    when: 'A request with the same Idempotency-Key is still running; retry after the Retry-After header (nothing was stored).',
    details: {
      type: 'object',
      properties: { idempotencyKey: { type: 'string' }, retryAfterSeconds: { type: 'integer', minimum: 0 } },
      required: ['idempotencyKey', 'retryAfterSeconds'],
    },
  }),
  IDEMPOTENCY_KEY_REUSED: code<{ idempotencyKey: string }>({
    status: 422,
    when: 'The Idempotency-Key was used before with another request (method, path and body, or GraphQL document and variables).',
    details: { type: 'object', properties: { idempotencyKey: { type: 'string' } }, required: ['idempotencyKey'] },
  }),

  // Limits (D12)
  PAYLOAD_TOO_LARGE: code<{ limitBytes: number }>({
    status: 413,
    when: 'The body is larger than 1 MiB.',
    details: { type: 'object', properties: { limitBytes: { type: 'integer' } }, required: ['limitBytes'] },
  }),
  URI_TOO_LONG: code<{ limitBytes: number }>({
    status: 414,
    when: "The request line (method, path and query) is longer than the server reads (the request's head is at most 16 KiB).",
    details: { type: 'object', properties: { limitBytes: { type: 'integer' } }, required: ['limitBytes'] },
  }),
  HEADERS_TOO_LARGE: code<{ limitBytes: number }>({
    status: 431,
    when: "The request's headers are larger than the server reads (the request's head is at most 16 KiB).",
    details: { type: 'object', properties: { limitBytes: { type: 'integer' } }, required: ['limitBytes'] },
  }),
  REQUEST_TIMEOUT: code({
    status: 408,
    when: 'The request did not arrive whole in time (its head within 30 s, all of it within 60 s); the connection is closed.',
  }),
  RATE_LIMITED: code<{ retryAfterSeconds: number; limit?: number }>({
    status: 429,
    when: "The organization's request budget for this minute is spent (or too many failed authentications from this address).",
    details: { type: 'object', properties: { retryAfterSeconds: { type: 'integer', minimum: 0 } }, required: ['retryAfterSeconds'] },
  }),

  // Server failures (D13): never the cause's text, only the request id
  SERVICE_UNAVAILABLE: code<{ requestId?: string; checks?: Record<string, string> }>({
    status: 503,
    when: 'The database is unreachable; retry shortly.',
    details: { type: 'object', properties: { requestId }, required: ['requestId'] },
  }),
  INTERNAL_ERROR: code<{ requestId: string }>({
    status: 500,
    when: 'An unexpected failure; the message is generic and never shows a stack or SQL.',
    details: { type: 'object', properties: { requestId }, required: ['requestId'] },
  }),
} satisfies Record<string, ErrorCodeEntry>;

/** The closed catalogue of error codes a client can see, in REST and in GraphQL alike. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** The `details` each code carries (`undefined`: none). */
export type ErrorDetailsByCode = { [C in ErrorCode]: DetailsOf<(typeof ERROR_TABLE)[C]> };

/** Every code of the table, in its order. */
export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/** HTTP status for every code, used by both doors. */
export function httpStatusOf(code: ErrorCode): number {
  return ERROR_TABLE[code].status;
}
