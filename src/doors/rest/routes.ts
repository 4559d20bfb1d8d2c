import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../../foundation/errors/app-error';
import { idBounds, slugBounds } from '../../foundation/validation/arguments';
import { MAX_SEARCH_LENGTH } from '../../modules/event/event.read-model';
import type { Permission } from '../../platform/auth/permissions';
import type { RequestContext } from '../../platform/graphql/request-context';
import { sendAttendeesCsv } from './attendees-csv';
import { MAX_TICKET_CODE_LENGTH, TICKET_CODE_SHAPE } from '../../platform/crypto/ticket-codes';
import {
  afterBounds,
  BODY_VARIABLES,
  BOOKING_ERRORS,
  bookingId,
  eventSlug,
  pageBounds,
  QUEUE_GATE_ERRORS,
  type ParameterBounds,
  type RestRoute,
} from './route-table';
import { QUEUE_ROUTES } from './queue-routes';
import { SERIES_ROUTES } from './series-routes';

export { BODY_VARIABLES, readsBody, type ParameterBounds, type RestRoute } from './route-table';

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
  ...SERIES_ROUTES,
  ...QUEUE_ROUTES,
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
