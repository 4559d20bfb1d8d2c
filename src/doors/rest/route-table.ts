import type { ErrorCode } from '../../foundation/errors/app-error';
import { argumentBounds, idBounds, slugBounds } from '../../foundation/validation/arguments';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../platform/crypto/list-cursor';

/*
 * What a REST route is (RestRoute) and the bounds the route tables share. The tables: routes.ts (events,
 * bookings, check-ins, the waiting list), series-routes.ts (D28), queue-routes.ts (D30).
 */

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

export const pageBounds = { page: argumentBounds('page'), limit: argumentBounds('limit') };
/** `?after=` of a list (D25): a previous page's nextCursor. */
export const afterBounds = { after: { maxLength: MAX_CURSOR_LENGTH, pattern: CURSOR_PATTERN } };
/** The booking routes' `{id}`: `bk_…`, else 400 VALIDATION_ERROR (the commands' and booking(id)'s own check). */
export const bookingId = { id: idBounds('bk') };
/** `{slug}` of the booking routes: Query.bookings and createBooking refuse a malformed eventSlug (400). */
export const eventSlug = { slug: slugBounds() };
export const BOOKING_ERRORS = ['BOOKING_NOT_FOUND'] as const satisfies readonly ErrorCode[];
/** What an event's on-sale queue answers a booking it refuses (D30). */
export const QUEUE_GATE_ERRORS = ['NOT_ON_SALE', 'QUEUE_REQUIRED', 'QUEUE_ENTRY_NOT_FOUND', 'ADMISSION_MISMATCH', 'NOT_ADMITTED', 'ADMISSION_USED', 'ADMISSION_EXPIRED'] as const satisfies readonly ErrorCode[];
export const queueEntryId = { id: idBounds('qe') };
