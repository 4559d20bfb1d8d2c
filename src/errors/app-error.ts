/** The closed catalogue of error codes a client can see, in REST and in GraphQL alike. */
export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'INVALID_API_KEY'
  | 'API_KEY_EXPIRED'
  | 'FORBIDDEN'
  | 'IP_NOT_ALLOWED'
  | 'HTTPS_REQUIRED'
  | 'EVENT_NOT_FOUND'
  | 'BOOKING_NOT_FOUND'
  | 'TICKET_TYPE_NOT_FOUND'
  | 'WEBHOOK_ENDPOINT_NOT_FOUND'
  | 'WEBHOOK_MESSAGE_NOT_FOUND'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'VALIDATION_ERROR'
  | 'QUERY_TOO_COMPLEX'
  | 'EVENT_ALREADY_PUBLISHED'
  | 'EVENT_HAS_BOOKINGS'
  | 'SOLD_OUT'
  | 'EVENT_NOT_PUBLISHED'
  | 'BOOKING_ALREADY_CANCELLED'
  | 'TICKET_TYPE_HAS_SALES'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export interface FieldError {
  field: string;
  message: string;
}

export type ErrorDetails = Record<string, unknown>;

/** A domain error: services throw these, the transports map them (never HTTP exceptions). */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = 'AppError';
  }

  static validation(errors: FieldError[]): AppError {
    const summary = errors.map((error) => `${error.field}: ${error.message}`).join('; ');
    return new AppError('VALIDATION_ERROR', `Validation failed: ${summary}`, { errors });
  }

  static eventNotFound(slug: string): AppError {
    return new AppError('EVENT_NOT_FOUND', `No event with slug "${slug}"`, { slug });
  }
}

function assertNever(value: never): never {
  throw new Error(`Unmapped error code: ${String(value)}`);
}

/** HTTP status for every code; adding a code without a status fails to compile. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION_ERROR':
    case 'QUERY_TOO_COMPLEX':
      return 400;
    case 'UNAUTHORIZED':
    case 'INVALID_API_KEY':
    case 'API_KEY_EXPIRED':
      return 401;
    case 'FORBIDDEN':
    case 'IP_NOT_ALLOWED':
    case 'HTTPS_REQUIRED':
      return 403;
    case 'EVENT_NOT_FOUND':
    case 'BOOKING_NOT_FOUND':
    case 'TICKET_TYPE_NOT_FOUND':
    case 'WEBHOOK_ENDPOINT_NOT_FOUND':
    case 'WEBHOOK_MESSAGE_NOT_FOUND':
    case 'NOT_FOUND':
      return 404;
    case 'METHOD_NOT_ALLOWED':
      return 405;
    case 'EVENT_ALREADY_PUBLISHED':
    case 'EVENT_HAS_BOOKINGS':
    case 'SOLD_OUT':
    case 'EVENT_NOT_PUBLISHED':
    case 'BOOKING_ALREADY_CANCELLED':
    case 'TICKET_TYPE_HAS_SALES':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'RATE_LIMITED':
      return 429;
    case 'INTERNAL_ERROR':
      return 500;
    case 'SERVICE_UNAVAILABLE':
      return 503;
    default:
      return assertNever(code);
  }
}

/** The REST error envelope: {"error": {"code", "message", "details"}}. */
export function errorEnvelope(error: AppError): { error: { code: ErrorCode; message: string; details?: ErrorDetails } } {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

/** The GraphQL `extensions` of an error: the same code and details as the REST envelope. */
export function graphqlExtensionsOf(error: AppError): { code: ErrorCode; details?: ErrorDetails } {
  return { code: error.code, ...(error.details === undefined ? {} : { details: error.details }) };
}
