import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../../foundation/errors/app-error';
import { argumentBounds, idBounds, slugBounds } from '../../foundation/validation/arguments';
import { MAX_SEARCH_LENGTH } from '../../modules/event/event.read-model';
import type { Permission } from '../../platform/auth/permissions';
import type { RequestContext } from '../../platform/graphql/request-context';
import { sendAttendeesCsv } from './attendees-csv';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../platform/crypto/list-cursor';
import { MAX_TICKET_CODE_LENGTH, TICKET_CODE_SHAPE } from '../../platform/crypto/ticket-codes';

/** The bounds of a parameter, for the OpenAPI document: the constants the service checks it with. */
export interface ParameterBounds {
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}

/** How one REST route maps onto a named GraphQL operation. No business rule lives here. */
export interface RestRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Express path; `:name` parameters become variables of the same name. */
  readonly path: string;
  readonly operation: string;
  /** Query-string parameters passed as variables of the same name (converted to the variable's type). */
  readonly query?: readonly string[];
  /**
   * The variable that receives the JSON body (fields the operation does not accept are dropped), or
   * BODY_VARIABLES: each field of the body is the variable of its name (an operation whose arguments
   * stand side by side, as checkInByCode's `code` and `eventSlug`, or updateSeries's `changes`, `scope`,
   * `expectedVersion`…; the body must be an object, its other fields are dropped).
   */
  readonly body?: string;
  /**
   * Fields of the body's variable taken from the path instead (field → path parameter): the resource
   * the path names, e.g. `eventSlug` ← `slug` for a booking of /v1/events/{slug}/bookings. The body
   * cannot set them, and the document's body schema leaves them out.
   */
  readonly bodyFromPath?: Readonly<Record<string, string>>;
  readonly status: 200 | 201 | 204;
  /** The root field of the result sent back (none for 204). */
  readonly result?: string;
  /** The Location header of a 201: `path` followed by the returned object's `field`, URL-encoded. */
  readonly location?: { readonly path: string; readonly field: string };
  /**
   * For an operation that answers an existing resource when there is one (joinQueue: one entry per
   * attendee): the result's boolean field saying whether this call made it. True: `status` (201) with
   * Location; false: 200 without. The field is not part of the body.
   */
  readonly created?: string;
  /**
   * Domain errors the operation can raise, for the OpenAPI document (authentication, permission,
   * validation, limits and server errors are added to every route from what the route declares).
   */
  readonly errors?: readonly ErrorCode[];
  /**
   * Bounds of path and query parameters (and of a BODY_VARIABLES body's fields), for the OpenAPI document: the constants the
   * service checks them with (a path parameter the operation refuses as malformed, 400, rather than not found, 404).
   */
  readonly parameterBounds?: Readonly<Record<string, ParameterBounds>>;
  /** The document's tag (default: the path's first resource, `/v1/events/…` → Events). */
  readonly tag?: string;
}

/** `body` of a route whose body's fields are its operation's variables (see RestRoute.body). */
export const BODY_VARIABLES = '*';

/** Whether a route reads a JSON body (into one input variable, or each field into the variable of its name). */
export const readsBody = (route: RestRoute): boolean => route.body !== undefined;

const pageBounds = { page: argumentBounds('page'), limit: argumentBounds('limit') };
/** `?after=` of a list (D25): a previous page's nextCursor. */
const afterBounds = { after: { maxLength: MAX_CURSOR_LENGTH, pattern: CURSOR_PATTERN } };
/** The booking routes' `{id}`: `bk_…`, else 400 VALIDATION_ERROR (the commands' and booking(id)'s own check). */
const bookingId = { id: idBounds('bk') };
/** `{slug}` of the booking routes: Query.bookings and createBooking refuse a malformed eventSlug (400). */
const eventSlug = { slug: slugBounds() };
const BOOKING_ERRORS = ['BOOKING_NOT_FOUND'] as const satisfies readonly ErrorCode[];
/** What an event's on-sale queue answers a booking it refuses (D30). */
const QUEUE_GATE_ERRORS = ['NOT_ON_SALE', 'QUEUE_REQUIRED', 'QUEUE_ENTRY_NOT_FOUND', 'ADMISSION_MISMATCH', 'NOT_ADMITTED', 'ADMISSION_USED', 'ADMISSION_EXPIRED'] as const satisfies readonly ErrorCode[];
const queueEntryId = { id: idBounds('qe') };

export const REST_ROUTES: readonly RestRoute[] = [
  {
    method: 'GET',
    path: '/v1/events',
    operation: 'ListEvents',
    query: ['page', 'limit', 'status', 'startsAfter', 'startsBefore', 'search', 'series', 'orderBy', 'after'],
    status: 200,
    result: 'events',
    parameterBounds: { ...pageBounds, search: { maxLength: MAX_SEARCH_LENGTH }, series: slugBounds(), ...afterBounds },
  },
  {
    method: 'POST',
    path: '/v1/events',
    operation: 'CreateEvent',
    body: 'input',
    status: 201,
    result: 'createEvent',
    location: { path: '/v1/events/', field: 'slug' },
  },
  { method: 'GET', path: '/v1/events/:slug', operation: 'GetEvent', status: 200, result: 'event', errors: ['EVENT_NOT_FOUND'] },
  {
    method: 'PUT',
    path: '/v1/events/:slug',
    operation: 'UpdateEvent',
    body: 'input',
    status: 200,
    result: 'updateEvent',
    errors: ['EVENT_NOT_FOUND', 'EVENT_ALREADY_PUBLISHED'],
  },
  { method: 'DELETE', path: '/v1/events/:slug', operation: 'DeleteEvent', status: 204, errors: ['EVENT_NOT_FOUND', 'EVENT_HAS_BOOKINGS'] },

  // Bookings (D23): the GraphQL booking operations, one route each.
  {
    method: 'GET',
    path: '/v1/events/:slug/bookings',
    operation: 'ListBookings',
    query: ['page', 'limit', 'status', 'after'],
    status: 200,
    result: 'bookings',
    errors: ['EVENT_NOT_FOUND'],
    parameterBounds: { ...eventSlug, ...pageBounds, ...afterBounds },
    tag: 'Bookings',
  },
  {
    method: 'POST',
    path: '/v1/events/:slug/bookings',
    operation: 'CreateBooking',
    body: 'input',
    bodyFromPath: { eventSlug: 'slug' },
    status: 201,
    result: 'createBooking',
    location: { path: '/v1/bookings/', field: 'id' },
    // The event's, then its on-sale queue's (D30).
    errors: ['EVENT_NOT_FOUND', 'TICKET_TYPE_NOT_FOUND', 'EVENT_NOT_PUBLISHED', 'SOLD_OUT', ...QUEUE_GATE_ERRORS],
    parameterBounds: eventSlug,
    tag: 'Bookings',
  },
  { method: 'GET', path: '/v1/bookings/:id', operation: 'GetBooking', status: 200, result: 'booking', errors: BOOKING_ERRORS, parameterBounds: bookingId },
  {
    method: 'POST',
    path: '/v1/bookings/:id/confirm',
    operation: 'ConfirmBooking',
    status: 200,
    result: 'confirmBooking',
    errors: [...BOOKING_ERRORS, 'HOLD_EXPIRED', 'BOOKING_NOT_HELD'],
    parameterBounds: bookingId,
  },
  {
    method: 'POST',
    path: '/v1/bookings/:id/cancel',
    operation: 'CancelBooking',
    status: 200,
    result: 'cancelBooking',
    errors: [...BOOKING_ERRORS, 'BOOKING_ALREADY_CANCELLED', 'HOLD_EXPIRED'],
    parameterBounds: bookingId,
  },
  {
    method: 'POST',
    path: '/v1/bookings/:id/check-in',
    operation: 'CheckInBooking',
    status: 200,
    result: 'checkInBooking',
    errors: [...BOOKING_ERRORS, 'ALREADY_CHECKED_IN', 'BOOKING_NOT_CONFIRMED'],
    parameterBounds: bookingId,
  },
  // Undoing a check-in answers the booking as it is now (200), not 204: a gate sees its state at once.
  {
    method: 'DELETE',
    path: '/v1/bookings/:id/check-in',
    operation: 'UndoCheckIn',
    status: 200,
    result: 'undoCheckIn',
    errors: [...BOOKING_ERRORS, 'NOT_CHECKED_IN', 'BOOKING_NOT_CONFIRMED'],
    parameterBounds: bookingId,
  },

  // Tickets that can change hands (D29): a gate scans a code; a booking goes to another attendee, or to another event.
  {
    method: 'POST',
    path: '/v1/check-ins',
    operation: 'CheckInByCode',
    body: BODY_VARIABLES,
    status: 200,
    result: 'checkInByCode',
    errors: ['TICKET_TRANSFERRED', 'EVENT_NOT_FOUND', 'TICKET_NOT_FOUND', 'WRONG_EVENT', 'ALREADY_CHECKED_IN', 'BOOKING_NOT_CONFIRMED'],
    parameterBounds: { code: { maxLength: MAX_TICKET_CODE_LENGTH, pattern: TICKET_CODE_SHAPE.source }, eventSlug: slugBounds() },
    tag: 'Bookings',
  },
  {
    method: 'POST',
    path: '/v1/bookings/:id/transfer',
    operation: 'TransferBooking',
    body: 'input',
    status: 200,
    result: 'transferBooking',
    errors: [...BOOKING_ERRORS, 'BOOKING_NOT_CONFIRMED', 'BOOKING_CHECKED_IN', 'TRANSFER_LOCKED'],
    parameterBounds: bookingId,
  },
  {
    method: 'POST',
    path: '/v1/bookings/:id/exchange',
    operation: 'ExchangeBooking',
    body: 'input',
    status: 200,
    result: 'exchangeBooking',
    errors: [...BOOKING_ERRORS, 'BOOKING_NOT_CONFIRMED', 'BOOKING_CHECKED_IN', 'TRANSFER_LOCKED', 'EVENT_NOT_FOUND', 'EVENT_NOT_PUBLISHED', 'TICKET_TYPE_NOT_FOUND', 'SOLD_OUT'],
    parameterBounds: bookingId,
  },

  // The waiting list (D21, D23): the GraphQL waiting-list operations, one route each.
  {
    method: 'GET',
    path: '/v1/events/:slug/waitlist',
    operation: 'ListWaitlist',
    query: ['page', 'limit', 'status', 'after'],
    status: 200,
    result: 'waitlist',
    errors: ['EVENT_NOT_FOUND'],
    parameterBounds: { ...eventSlug, ...pageBounds, ...afterBounds },
    tag: 'Waiting list',
  },
  {
    method: 'POST',
    path: '/v1/events/:slug/waitlist',
    operation: 'JoinWaitlist',
    body: 'input',
    bodyFromPath: { eventSlug: 'slug' },
    status: 201,
    result: 'joinWaitlist',
    errors: ['EVENT_NOT_FOUND', 'TICKET_TYPE_NOT_FOUND', 'EVENT_NOT_PUBLISHED', 'SEATS_AVAILABLE'],
    parameterBounds: eventSlug,
    tag: 'Waiting list',
  },
  {
    method: 'DELETE',
    path: '/v1/waitlist/:id',
    operation: 'LeaveWaitlist',
    status: 200,
    result: 'leaveWaitlist',
    errors: ['WAITLIST_ENTRY_NOT_FOUND', 'WAITLIST_ENTRY_NOT_WAITING'],
    parameterBounds: { id: idBounds('wl') },
    tag: 'Waiting list',
  },

  // Event series (D28): the GraphQL series operations, one route each.
  {
    method: 'GET',
    path: '/v1/series',
    operation: 'ListSeries',
    query: ['page', 'limit', 'after'],
    status: 200,
    result: 'seriesList',
    parameterBounds: { ...pageBounds, ...afterBounds },
  },
  {
    method: 'POST',
    path: '/v1/series',
    operation: 'CreateSeries',
    body: 'input',
    status: 201,
    result: 'createSeries',
    location: { path: '/v1/series/', field: 'slug' },
  },
  { method: 'GET', path: '/v1/series/:slug', operation: 'GetSeries', status: 200, result: 'series', errors: ['SERIES_NOT_FOUND'] },
  {
    method: 'PUT',
    path: '/v1/series/:slug',
    operation: 'UpdateSeries',
    body: BODY_VARIABLES,
    status: 200,
    result: 'updateSeries',
    errors: ['SERIES_NOT_FOUND', 'SERIES_CHANGED'],
  },
  { method: 'DELETE', path: '/v1/series/:slug', operation: 'DeleteSeries', status: 204, errors: ['SERIES_NOT_FOUND', 'SERIES_HAS_BOOKINGS'] },
  {
    method: 'POST',
    path: '/v1/series/:slug/preview',
    operation: 'PreviewSeriesChange',
    body: BODY_VARIABLES,
    status: 200,
    result: 'previewSeriesChange',
    errors: ['SERIES_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/v1/series/:slug/occurrences',
    operation: 'ListSeriesOccurrences',
    query: ['page', 'limit', 'after'],
    status: 200,
    result: 'seriesOccurrences',
    errors: ['SERIES_NOT_FOUND'],
    parameterBounds: { ...pageBounds, ...afterBounds },
  },
  // The on-sale queue (D30): join (201 new, 200 the attendee's entry), poll, leave, and the figures.
  {
    method: 'POST',
    path: '/v1/events/:slug/queue',
    operation: 'JoinQueue',
    body: 'input',
    status: 201,
    created: 'created',
    result: 'joinQueue',
    location: { path: '/v1/queue/', field: 'id' },
    errors: ['EVENT_NOT_FOUND', 'QUEUE_NOT_ENABLED', 'QUEUE_NOT_OPEN', 'EVENT_NOT_PUBLISHED', 'SOLD_OUT'],
    parameterBounds: eventSlug,
    tag: 'Queue',
  },
  { method: 'GET', path: '/v1/events/:slug/queue', operation: 'QueueStats', status: 200, result: 'queueStats', errors: ['EVENT_NOT_FOUND'], parameterBounds: eventSlug, tag: 'Queue' },
  { method: 'GET', path: '/v1/queue/:id', operation: 'GetQueueEntry', status: 200, result: 'queueEntry', errors: ['QUEUE_ENTRY_NOT_FOUND'], parameterBounds: queueEntryId, tag: 'Queue' },
  { method: 'DELETE', path: '/v1/queue/:id', operation: 'LeaveQueue', status: 200, result: 'leaveQueue', errors: ['QUEUE_ENTRY_NOT_FOUND'], parameterBounds: queueEntryId, tag: 'Queue' },
];

/**
 * A REST route that is no GraphQL operation: a file streamed by the REST door itself (a GraphQL
 * result is one value in memory). It takes the same pipeline steps as a table route (key,
 * allowlist, rate budget, access log), its permission checked by the same function, and is described
 * in the OpenAPI document from this declaration.
 */
export interface RestDownload {
  readonly method: 'GET';
  readonly path: string;
  /** For the access log and the document's operationId. */
  readonly name: string;
  readonly permission: Permission;
  /** The media type of a 200. */
  readonly mediaType: string;
  readonly summary: string;
  readonly description: string;
  /** Domain errors it can answer before the first byte (the common ones are added as for every route). */
  readonly errors: readonly ErrorCode[];
  /** Path parameters: their descriptions and the constants they are checked with. */
  readonly parameters: Readonly<Record<string, { readonly description: string } & ParameterBounds>>;
  readonly tag?: string;
  /** Writes the answer (or throws before its first byte, for the error envelope). */
  readonly send: (res: ServerResponse, context: RequestContext, params: Readonly<Record<string, string>>) => Promise<void>;
}

export const REST_DOWNLOADS: readonly RestDownload[] = [
  {
    method: 'GET',
    path: '/v1/events/:slug/attendees.csv',
    name: 'AttendeesCsv',
    permission: 'bookings:read',
    mediaType: 'text/csv',
    summary: "The event's attendee list: every CONFIRMED booking, as CSV.",
    description:
      'Streamed (RFC 4180, UTF-8, CRLF line ends), oldest booking first. Header row `id,attendeeName,attendeeEmail,ticketType,quantity,status,createdAt,checkedInAt`; ' +
      "`ticketType` is the ticket type's name (empty without one), `checkedInAt` empty until the check-in. A cell starting with `=`, `+`, `-`, `@`, a tab " +
      "or a carriage return is prefixed with `'` so that spreadsheets show it as text (no formula runs). Errors come before the first byte, in the JSON envelope; " +
      'a failure once the file has begun cuts the connection (the file never ends cleanly truncated).',
    errors: ['EVENT_NOT_FOUND'],
    parameters: { slug: { description: 'The event.', ...slugBounds() } },
    tag: 'Bookings',
    send: sendAttendeesCsv,
  },
];
