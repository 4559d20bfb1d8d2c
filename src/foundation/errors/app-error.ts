/**
 * Every error a client can see: one code from the closed table of error-codes.ts (its HTTP status and
 * documented details), a message safe to show, and details typed per code. Services throw these (never
 * HTTP exceptions); each transport maps them in one file of its own (src/http/error-handler.ts,
 * src/platform/graphql/graphql-errors.ts). See D13 (docs/decisions/) for the catalogue as clients see it.
 */

import { boundDetails, boundText, echo } from './echo';
import type { ErrorCode, ErrorDetailsByCode, FieldError } from './error-codes';

export { httpStatusOf, type ErrorCode, type ErrorDetailsByCode, type FieldError } from './error-codes';
export { echo } from './echo';

export type ErrorDetails = Record<string, unknown>;

/** A code with its message and the details that code carries (optional only where a code may have none). */
export type AppErrorArguments = {
  [C in ErrorCode]: undefined extends ErrorDetailsByCode[C]
    ? [code: C, message: string, details?: ErrorDetailsByCode[C]]
    : [code: C, message: string, details: ErrorDetailsByCode[C]];
}[ErrorCode];

/** A domain error. Prefer the named constructors below: one per code, with that code's details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;

  /** The message and every string of the details are bounded (echo.ts): a client's value is shown, never repeated whole. */
  constructor(...[code, message, details]: AppErrorArguments) {
    // A client's error is answered, never logged with a stack: none is captured. Capturing one, and
    // formatting it when GraphQL copies it onto its error, was a visible share of a refusal's CPU
    // (a ticket drop's SOLD_OUT answers, docs/performance.md). Server failures keep theirs.
    const bounded = boundText(message);
    const serverFailure = isServerFailure(code);
    const stackTraceLimit = Error.stackTraceLimit;
    if (!serverFailure) Error.stackTraceLimit = 0;
    super(bounded);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'AppError';
    // Its text set now: reading an uncaptured stack still formats one (GraphQL's errors copy it).
    if (!serverFailure) this.stack = `AppError: ${bounded}`;
    this.code = code;
    if (details !== undefined) this.details = boundDetails(details);
  }

  // Authentication and access (D2, D9, D10, D11)
  static unauthorized(message = 'Missing API key: send it in the Authorization header as "Bearer <API_KEY>"'): AppError {
    return new AppError('UNAUTHORIZED', message);
  }

  static invalidApiKey(): AppError {
    return new AppError('INVALID_API_KEY', 'The API key is invalid or has been revoked');
  }

  static apiKeyExpired(): AppError {
    return new AppError('API_KEY_EXPIRED', 'The API key has expired; create a new one');
  }

  static forbidden(requiredPermission: string, currentPermissions: readonly string[]): AppError {
    return new AppError('FORBIDDEN', `This API key lacks the "${requiredPermission}" permission`, {
      requiredPermission,
      currentPermissions: [...currentPermissions],
    });
  }

  /** A dashboard-only field (@requiresSession) asked by an API key, or by a session of a lesser role (D19). */
  static sessionRequired(role: 'ADMIN' | 'MEMBER', currentPermissions: readonly string[], message: string): AppError {
    return new AppError('FORBIDDEN', message, { requiredSession: role, currentPermissions: [...currentPermissions] });
  }

  /** A dashboard request another site could have made (no or wrong anti-forgery header, foreign Origin). */
  static crossSite(reason: string): AppError {
    return new AppError('FORBIDDEN', `Cross-site request refused: ${reason}`, { reason });
  }

  static ipNotAllowed(ip: string | undefined): AppError {
    const shown = ip === undefined ? undefined : echo(ip);
    return new AppError('IP_NOT_ALLOWED', `Requests from ${shown ?? 'this address'} are not allowed for this organization`, { ip: shown });
  }

  static httpsRequired(): AppError {
    return new AppError('HTTPS_REQUIRED', 'This API is served over HTTPS only; use https://');
  }

  // Missing things (D1: another organization's row answers exactly like a missing one)
  static eventNotFound(slug: string): AppError {
    return new AppError('EVENT_NOT_FOUND', `No event with slug "${echo(slug)}"`, { slug: echo(slug) });
  }

  static bookingNotFound(id: string): AppError {
    return new AppError('BOOKING_NOT_FOUND', `No booking with id "${echo(id)}"`, { id: echo(id) });
  }

  static ticketTypeNotFound(id: string): AppError {
    return new AppError('TICKET_TYPE_NOT_FOUND', `No ticket type with id "${echo(id)}"`, { id: echo(id) });
  }

  /** D29: never the code itself (it opens a door). */
  static ticketNotFound(): AppError {
    return new AppError('TICKET_NOT_FOUND', 'No ticket with this code');
  }

  static waitlistEntryNotFound(id: string): AppError {
    return new AppError('WAITLIST_ENTRY_NOT_FOUND', `No waiting-list entry with id "${echo(id)}"`, { id: echo(id) });
  }

  static webhookEndpointNotFound(id: string): AppError {
    return new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint with id "${echo(id)}"`, { id: echo(id) });
  }

  static webhookMessageNotFound(id: string): AppError {
    return new AppError('WEBHOOK_MESSAGE_NOT_FOUND', `No webhook message with id "${echo(id)}" for this endpoint`, { id: echo(id) });
  }

  static seriesNotFound(slug: string): AppError {
    return new AppError('SERIES_NOT_FOUND', `No series with slug "${echo(slug)}"`, { slug: echo(slug) });
  }

  /** The operator's and the dashboard's lookups (D8, D9, D19): another organization's answers as a missing one. */
  static organizationNotFound(id: string): AppError {
    return new AppError('NOT_FOUND', `No organization with id "${echo(id)}"`, { id: echo(id) });
  }

  static memberNotFound(id: string): AppError {
    return new AppError('NOT_FOUND', `No member with id "${echo(id)}"`, { id: echo(id) });
  }

  static apiKeyNotFound(id: string): AppError {
    return new AppError('NOT_FOUND', `No API key with id "${echo(id)}"`, { id: echo(id) });
  }

  /** A route or a thing without a constructor of its own that does not exist. */
  static notFound(message: string, id?: string): AppError {
    return new AppError('NOT_FOUND', message, id === undefined ? undefined : { id: echo(id) });
  }

  static methodNotAllowed(method: string, allowed: readonly string[]): AppError {
    return new AppError('METHOD_NOT_ALLOWED', `${echo(method)} is not allowed here; allowed: ${allowed.join(', ')}`, { allowed: [...allowed] });
  }

  // Bad input (D4)
  static validation(fieldErrors: FieldError[]): AppError {
    // A field's name may be the client's own (an unknown key of a GraphQL input object).
    const errors = fieldErrors.map(({ field, message }) => ({ field: echo(field, 100), message }));
    const summary = errors.map((error) => `${error.field}: ${error.message}`).join('; ');
    return new AppError('VALIDATION_ERROR', `Validation failed: ${summary}`, { errors });
  }

  static queryTooComplex(message: string, details: ErrorDetailsByCode['QUERY_TOO_COMPLEX']): AppError {
    return new AppError('QUERY_TOO_COMPLEX', message, details);
  }

  static payloadTooLarge(limitBytes: number): AppError {
    return new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limitBytes} bytes`, { limitBytes });
  }

  /** A request line longer than the HTTP parser reads (src/http/client-error.ts). */
  static uriTooLong(limitBytes: number): AppError {
    return new AppError('URI_TOO_LONG', `The request line (method, path and query) is longer than ${limitBytes} bytes`, { limitBytes });
  }

  /** Request headers larger than the HTTP parser reads (src/http/client-error.ts). */
  static headersTooLarge(limitBytes: number): AppError {
    return new AppError('HEADERS_TOO_LARGE', `The request headers are larger than ${limitBytes} bytes`, { limitBytes });
  }

  static requestTimeout(): AppError {
    return new AppError('REQUEST_TIMEOUT', 'The request did not arrive whole in time');
  }

  // State rules (D3, D6, D7): raised by the module policies
  static eventAlreadyPublished(status: string, immutableFields: string[]): AppError {
    return new AppError(
      'EVENT_ALREADY_PUBLISHED',
      `The event is ${status.toLowerCase()}: ${immutableFields.join(' and ')} can no longer change`,
      { immutableFields },
    );
  }

  static eventHasBookings(bookingCount: number): AppError {
    return new AppError(
      'EVENT_HAS_BOOKINGS',
      `The event has ${bookingCount} confirmed booking${bookingCount === 1 ? '' : 's'}; cancel the event instead, or cancel the bookings first`,
      { bookingCount },
    );
  }

  static eventNotPublished(slug: string, status: string): AppError {
    return new AppError('EVENT_NOT_PUBLISHED', `Only a PUBLISHED event can be booked; this one is ${status}`, { slug: echo(slug), status });
  }

  static soldOut(details: Extract<ErrorDetailsByCode['SOLD_OUT'], { limitedBy: unknown }>): AppError {
    const what = details.limitedBy === 'capacity' ? "the event's capacity" : 'this ticket type';
    const message =
      details.available === 0
        ? `Sold out: ${what} has no seats left`
        : `Only ${details.available} left for ${what}; ${details.requested} requested`;
    return new AppError('SOLD_OUT', message, details);
  }

  static bookingAlreadyCancelled(id: string, cancelledAt: Date | null): AppError {
    return new AppError('BOOKING_ALREADY_CANCELLED', 'This booking is already cancelled', {
      id: echo(id),
      cancelledAt: cancelledAt?.toISOString() ?? null,
    });
  }

  static holdExpired(id: string, expiresAt: Date | null): AppError {
    return new AppError('HOLD_EXPIRED', 'This hold has expired: its seats are free again', { id, expiresAt: expiresAt?.toISOString() ?? null });
  }

  static bookingNotHeld(id: string, status: string): AppError {
    return new AppError('BOOKING_NOT_HELD', `Only a HELD booking can be confirmed; this one is ${status}`, { id, status });
  }

  static seatsAvailable(details: ErrorDetailsByCode['SEATS_AVAILABLE']): AppError {
    const what = details.available === null ? 'Seats are free' : `${details.available} seat${details.available === 1 ? ' is' : 's are'} free`;
    return new AppError('SEATS_AVAILABLE', `${what} for ${details.requested} requested: book them instead of joining the waiting list`, details);
  }

  static waitlistEntryNotWaiting(id: string, status: string): AppError {
    return new AppError('WAITLIST_ENTRY_NOT_WAITING', `This waiting-list entry is ${status}; only a WAITING or OFFERED entry can leave`, { id, status });
  }

  static alreadyCheckedIn(checkedInAt: Date): AppError {
    return new AppError('ALREADY_CHECKED_IN', `This booking was checked in at ${checkedInAt.toISOString()}`, { checkedInAt: checkedInAt.toISOString() });
  }

  static bookingNotConfirmed(status: string, change: 'checked in' | 'transferred' | 'exchanged' = 'checked in'): AppError {
    return new AppError('BOOKING_NOT_CONFIRMED', `Only a CONFIRMED booking can be ${change}; this one is ${status}`, { status });
  }

  static notCheckedIn(): AppError {
    return new AppError('NOT_CHECKED_IN', 'This booking is not checked in; there is no check-in to undo');
  }

  static ticketTypeHasSales(id: string, sold: number): AppError {
    return new AppError(
      'TICKET_TYPE_HAS_SALES',
      `${sold} ticket${sold === 1 ? ' is' : 's are'} sold of this type; cancel those bookings first, or set its quantity to the number sold to stop sales`,
      { id, sold },
    );
  }

  // Idempotent retries (D17)
  static idempotencyKeyInUse(idempotencyKey: string, retryAfterSeconds: number): AppError {
    return new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running; retry shortly', {
      idempotencyKey: echo(idempotencyKey),
      retryAfterSeconds,
    });
  }

  static idempotencyKeyReused(idempotencyKey: string): AppError {
    return new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request; use a new key for a new request', {
      idempotencyKey: echo(idempotencyKey),
    });
  }

  // Limits (D12)
  static rateLimited(message: string, details: ErrorDetailsByCode['RATE_LIMITED']): AppError {
    return new AppError('RATE_LIMITED', message, details);
  }

  // Server failures (D13): never the cause's text, only the request id
  static serviceUnavailable(
    message = 'The service is temporarily unavailable; try again shortly',
    details: ErrorDetailsByCode['SERVICE_UNAVAILABLE'] = {},
  ): AppError {
    return new AppError('SERVICE_UNAVAILABLE', message, details);
  }

  static internal(requestId: string): AppError {
    return new AppError('INTERNAL_ERROR', 'An unexpected error occurred', { requestId });
  }
}

/** What a 503 tells clients to wait before retrying: the database is usually back within seconds. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** The one place that says which codes are the server's fault (logged, 5xx, never stored for replay). */
export function isServerFailure(code: string | undefined): code is 'INTERNAL_ERROR' | 'SERVICE_UNAVAILABLE' {
  return code === 'INTERNAL_ERROR' || code === 'SERVICE_UNAVAILABLE';
}
